// GPU tests of dequantize() for the FP8 layouts: bit for bit against the host reference on what
// the GPU quantizers wrote, and round trips that land near the original values. The layout and
// format checks at the end need no GPU.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/dequantize.h"
#include "quant/fp8/block.h"
#include "quant/fp8/dequantize.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/reference.h"
#include "quant/fp8/tensorwise.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::Shape;

struct Case {
  ElementFormat format;
  ScaleLayout layout;
  // Largest relative Frobenius error of a round trip on random data: half an ulp of the format's
  // mantissa bounds every element's relative error (3 bits: 1/16, 2 bits: 1/8), well below it.
  double max_relative_error;
};

const Case kCases[] = {{ElementFormat::kE4M3, ScaleLayout::kTensor, 0.04},
                       {ElementFormat::kE5M2, ScaleLayout::kTensor, 0.08},
                       {ElementFormat::kE4M3, ScaleLayout::kVec128, 0.04},
                       {ElementFormat::kE4M3, ScaleLayout::kBlock128x128, 0.04}};

// Both copies of `input` quantized on the GPU per `c`, with their buffers.
struct QuantizedOnDevice {
  QuantizedOnDevice(const std::vector<__nv_bfloat16>& input, int64_t rows, int64_t cols,
                    const Case& c)
      : layout(rows, cols, c.format, c.layout),
        device_input(testing::upload(input)),
        rowwise(layout.data_bytes()),
        columnwise(layout.data_bytes()),
        rowwise_scales(layout.rowwise_scale_count()),
        columnwise_scales(layout.columnwise_scale_count()),
        current_scaling(Fp8CurrentScalingState::kBufferFloats) {
    if (c.layout == ScaleLayout::kTensor) {
      const auto state = Fp8CurrentScalingState::in_buffer(current_scaling.get());
      quantize_fp8_current(device_input.get(), rows, cols, c.format, state,
                           {rowwise.get(), columnwise.get()}, nullptr);
      tensor_scale_inv = state.scale_inv;  // shared by both copies
      return;
    }
    const Fp8BlockTargets targets{rowwise.get(), rowwise_scales.get(), columnwise.get(),
                                  columnwise_scales.get()};
    if (c.layout == ScaleLayout::kVec128) {
      quantize_fp8_1x128(device_input.get(), rows, cols, targets, nullptr);
    } else {
      quantize_fp8_128x128(device_input.get(), rows, cols, targets, nullptr);
    }
  }
  QuantizedTensor rowwise_view() const {
    return layout.rowwise(rowwise.get(),
                          tensor_scale_inv ? tensor_scale_inv : rowwise_scales.get());
  }
  QuantizedTensor columnwise_view() const {
    return layout.columnwise(columnwise.get(),
                             tensor_scale_inv ? tensor_scale_inv : columnwise_scales.get());
  }

  Fp8OperandLayout layout;
  DeviceBuffer<__nv_bfloat16> device_input;
  DeviceBuffer<uint8_t> rowwise;
  DeviceBuffer<uint8_t> columnwise;
  DeviceBuffer<float> rowwise_scales;
  DeviceBuffer<float> columnwise_scales;
  DeviceBuffer<float> current_scaling;
  const float* tensor_scale_inv = nullptr;
};

int64_t scale_slots(const QuantizedTensor& q) {
  return Fp8OperandLayout(q.rows, q.cols, q.format, q.scale_layout).rowwise_scale_count();
}

// dequantize() on the GPU and the host reference on the same quantized bytes and scales.
std::vector<float> expect_dequantize_matches_reference(const QuantizedTensor& q) {
  const int64_t count = q.rows * q.cols;
  testing::PoisonedBuffer<float> out(count);
  dequantize(q, out.get(), nullptr);
  const auto data = testing::download(static_cast<const uint8_t*>(q.data), count);
  const auto scales = testing::download(static_cast<const float*>(q.scale), scale_slots(q));
  std::vector<float> expected(count);
  reference_dequantize_fp8(data.data(), q.format, q.rows, q.cols, scales.data(), q.scale_layout,
                           expected.data());
  const std::vector<float> actual = out.contents();
  EXPECT_EQ(testing::mismatches(actual, expected, /*nan_equal=*/true), "");
  EXPECT_TRUE(out.guard_intact());
  return actual;
}

double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
  double difference = 0.0, norm = 0.0;
  for (size_t i = 0; i < actual.size(); ++i) {
    difference += std::pow(static_cast<double>(actual[i]) - expected[i], 2);
    norm += std::pow(static_cast<double>(expected[i]), 2);
  }
  return std::sqrt(difference / norm);
}

TEST(Fp8DequantizeGpu, MatchesReferenceAndRoundTrips) {
  GEMMSCOPE_REQUIRE_GPU();
  for (const Shape& shape : {Shape{257, 391}, Shape{128, 128}, Shape{1, 1}, Shape{300, 1000}}) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, 900);
    std::vector<float> original(input.size()), original_transposed(input.size());
    for (int64_t r = 0; r < shape.rows; ++r) {
      for (int64_t c = 0; c < shape.cols; ++c) {
        original[r * shape.cols + c] = __bfloat162float(input[r * shape.cols + c]);
        original_transposed[c * shape.rows + r] = original[r * shape.cols + c];
      }
    }
    for (const Case& c : kCases) {
      SCOPED_TRACE(testing::shape_name(shape) + " case " +
                   std::to_string(static_cast<int>(c.layout)) + "/" +
                   std::to_string(static_cast<int>(c.format)));
      const QuantizedOnDevice quantized(input, shape.rows, shape.cols, c);
      const auto rowwise = expect_dequantize_matches_reference(quantized.rowwise_view());
      const auto columnwise = expect_dequantize_matches_reference(quantized.columnwise_view());
      if (shape.rows * shape.cols > 1) {
        EXPECT_LT(relative_error(rowwise, original), c.max_relative_error);
        EXPECT_LT(relative_error(columnwise, original_transposed), c.max_relative_error);
      }
    }
  }
}

// Checks fire before anything is enqueued: no GPU needed. The pointers are never dereferenced.
TEST(Fp8DequantizeArguments, RefusesLayoutsAndFormatsByName) {
  auto* out = reinterpret_cast<float*>(16);
  QuantizedTensor q;
  q.data = out;
  q.scale = out;
  q.rows = 4;
  q.cols = 4;
  q.format = ElementFormat::kE4M3;
  q.scale_layout = ScaleLayout::kVec32Ue8m0;
  std::string message =
      testing::thrown_message<std::invalid_argument>([&] { dequantize_fp8(q, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "Vec32Ue8m0")) << message;
  q.scale_layout = static_cast<ScaleLayout>(99);
  message = testing::thrown_message<std::invalid_argument>([&] { dequantize(q, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "unsupported scale layout")) << message;

  q.format = ElementFormat::kE2M1;
  q.scale_layout = ScaleLayout::kTensor;
  message = testing::thrown_message<std::invalid_argument>([&] { dequantize(q, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "E2M1")) << message;

  q.format = ElementFormat::kE4M3;
  q.rows = 0;
  message = testing::thrown_message<std::invalid_argument>([&] { dequantize(q, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "rows") && testing::contains(message, "0")) << message;
}

}  // namespace
}  // namespace gemmscope
