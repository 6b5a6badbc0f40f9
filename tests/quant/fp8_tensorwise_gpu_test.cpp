// GPU tests of the FP8 tensorwise kernels (amax, current scale, cast + transpose) against their
// host references, bit for bit, on odd and aligned shapes, into poisoned and guarded buffers.
// The argument checks at the end need no GPU.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/fp8/reference.h"
#include "quant/fp8/tensorwise.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::Shape;

// Odd sizes (scalar edge path), one full tile, partial tiles, and 16-aligned sizes (vector path).
const Shape kShapes[] = {{1, 1},     {257, 391}, {128, 128}, {300, 1000},
                         {256, 512}, {48, 80},   {1040, 272}};

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

float device_amax(const __nv_bfloat16* input, int64_t count) {
  testing::PoisonedBuffer<float> amax(1);
  compute_amax(input, count, amax.get(), nullptr);
  return amax.contents()[0];
}

TEST(Fp8TensorwiseGpu, AmaxMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 1;
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(testing::shape_name(shape));
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    const auto device_input = testing::upload(input);
    const int64_t count = shape.rows * shape.cols;
    EXPECT_EQ(testing::mismatches(std::vector<float>{device_amax(device_input.get(), count)},
                                  {reference_amax(input.data(), count)}),
              "");
    if (count > 1) {
      // Misaligned start (the scalar path) and a length that is not a multiple of 8.
      EXPECT_EQ(
          testing::mismatches(std::vector<float>{device_amax(device_input.get() + 1, count - 1)},
                              {reference_amax(input.data() + 1, count - 1)}),
          "");
    }
  }
}

TEST(Fp8TensorwiseGpu, AmaxIgnoresNanAndCountsInf) {
  GEMMSCOPE_REQUIRE_GPU();
  auto input = testing::random_bf16(100, 333, 7);
  input[5000] = __float2bfloat16(kNan);
  input[17] = __float2bfloat16(-kNan);
  const auto with_nan = testing::upload(input);
  EXPECT_EQ(device_amax(with_nan.get(), input.size()), reference_amax(input.data(), input.size()));
  EXPECT_FALSE(std::isnan(device_amax(with_nan.get(), input.size())));

  input[31000] = __float2bfloat16(-kInf);
  const auto with_inf = testing::upload(input);
  EXPECT_EQ(device_amax(with_inf.get(), input.size()), kInf);

  const auto zeros = testing::upload(std::vector<__nv_bfloat16>(1000, __float2bfloat16(0.0f)));
  EXPECT_EQ(device_amax(zeros.get(), 1000), 0.0f);
}

TEST(Fp8TensorwiseGpu, AmaxResetsItsOutput) {
  GEMMSCOPE_REQUIRE_GPU();
  const auto input = testing::random_bf16(64, 64, 3);
  const auto device_input = testing::upload(input);
  DeviceBuffer<float> amax(1);
  const float stale = 1e30f;
  CUDA_CHECK(cudaMemcpy(amax.get(), &stale, sizeof(float), cudaMemcpyHostToDevice));
  compute_amax(device_input.get(), input.size(), amax.get(), nullptr);
  EXPECT_EQ(testing::download(amax.get(), 1)[0], reference_amax(input.data(), input.size()));
}

TEST(Fp8TensorwiseGpu, CurrentScaleMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  const std::vector<float> amaxes = {1.0f, 2.0f, 3.0f, 448.0f, 0.0f, kInf, kNan, 1e-39f, 7.5e-3f};
  const auto device_amaxes = testing::upload(amaxes);
  for (ElementFormat format : {ElementFormat::kE4M3, ElementFormat::kE5M2}) {
    for (size_t i = 0; i < amaxes.size(); ++i) {
      SCOPED_TRACE("amax " + std::to_string(amaxes[i]));
      testing::PoisonedBuffer<float> scale(1), scale_inv(1);
      compute_current_scale(device_amaxes.get() + i, format, scale.get(), scale_inv.get(), nullptr);
      const Fp8Scales expected = reference_current_scale(amaxes[i], format);
      EXPECT_EQ(testing::mismatches(scale.contents(), {expected.scale}), "");
      EXPECT_EQ(testing::mismatches(scale_inv.contents(), {expected.scale_inv}), "");
    }
  }
}

enum class Copies { kRowwise, kColumnwise, kBoth };

// Casts `input` on the GPU into poisoned buffers and compares with reference_cast_fp8.
void expect_cast_matches(const std::vector<__nv_bfloat16>& input, const __nv_bfloat16* device_input,
                         const Shape& shape, ElementFormat format, float scale, Copies copies) {
  const int64_t count = shape.rows * shape.cols;
  const auto device_scale = testing::upload(std::vector<float>{scale});
  testing::PoisonedBuffer<uint8_t> rowwise(count), columnwise(count);
  Fp8CastTargets targets;
  if (copies != Copies::kColumnwise)
    targets.rowwise = rowwise.get();
  if (copies != Copies::kRowwise)
    targets.columnwise = columnwise.get();
  cast_fp8(device_input, shape.rows, shape.cols, format, device_scale.get(), targets, nullptr,
           nullptr);

  std::vector<uint8_t> expected_rowwise(count), expected_columnwise(count);
  reference_cast_fp8(input.data(), shape.rows, shape.cols, format, scale, expected_rowwise.data(),
                     expected_columnwise.data());
  if (copies != Copies::kColumnwise) {
    EXPECT_EQ(testing::mismatches(rowwise.contents(), expected_rowwise), "") << "rowwise";
    EXPECT_TRUE(rowwise.guard_intact()) << "rowwise written past its end";
  } else {
    EXPECT_EQ(rowwise.contents(), std::vector<uint8_t>(count, 0xFF)) << "rowwise not requested";
  }
  if (copies != Copies::kRowwise) {
    EXPECT_EQ(testing::mismatches(columnwise.contents(), expected_columnwise), "") << "columnwise";
    EXPECT_TRUE(columnwise.guard_intact()) << "columnwise written past its end";
  } else {
    EXPECT_EQ(columnwise.contents(), std::vector<uint8_t>(count, 0xFF))
        << "columnwise not requested";
  }
}

TEST(Fp8TensorwiseGpu, CastMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 100;
  for (const Shape& shape : kShapes) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    const auto device_input = testing::upload(input);
    for (ElementFormat format : {ElementFormat::kE4M3, ElementFormat::kE5M2}) {
      const float scale =
          reference_current_scale(reference_amax(input.data(), input.size()), format).scale;
      for (Copies copies : {Copies::kRowwise, Copies::kColumnwise, Copies::kBoth}) {
        SCOPED_TRACE(testing::shape_name(shape) +
                     (format == ElementFormat::kE4M3 ? " E4M3" : " E5M2") + " copies " +
                     std::to_string(static_cast<int>(copies)));
        expect_cast_matches(input, device_input.get(), shape, format, scale, copies);
      }
    }
  }
}

TEST(Fp8TensorwiseGpu, CastFromMisalignedInputTakesTheScalarPath) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{256, 512};  // aligned sizes, but the input starts 2 bytes into a buffer
  const auto padded = testing::random_bf16(1, shape.rows * shape.cols + 1, 11);
  const std::vector<__nv_bfloat16> input(padded.begin() + 1, padded.end());
  const auto device_padded = testing::upload(padded);
  expect_cast_matches(input, device_padded.get() + 1, shape, ElementFormat::kE4M3, 37.5f,
                      Copies::kBoth);
}

TEST(Fp8TensorwiseGpu, CastOfSpecialValues) {
  GEMMSCOPE_REQUIRE_GPU();
  // Ties at scale 1 (1.0625, 1.1875, 17, 19, 1.125, 1.375), saturation (464, 500, 1e30,
  // 61440), underflow (1e-30), signed zeros, infinities and NaNs.
  const std::vector<float> specials = {kNan,   -kNan,    kInf,   -kInf,  0.0f,    -0.0f,
                                       1e-30f, -1e-30f,  1e30f,  -1e30f, 1.0625f, 1.1875f,
                                       17.0f,  19.0f,    1.125f, 1.375f, 464.0f,  -500.0f,
                                       448.0f, 61440.0f, 2e-3f,  -3e-6f, 0.75f,   -57344.0f};
  for (const Shape& shape : {Shape{16, 16}, Shape{3, 5}, Shape{33, 47}}) {
    std::vector<__nv_bfloat16> input(shape.rows * shape.cols);
    for (size_t i = 0; i < input.size(); ++i) {
      input[i] = __float2bfloat16(specials[i % specials.size()]);
    }
    const auto device_input = testing::upload(input);
    for (ElementFormat format : {ElementFormat::kE4M3, ElementFormat::kE5M2}) {
      for (float scale : {1.0f, 3.0f, 1.0f / 1024}) {
        SCOPED_TRACE(testing::shape_name(shape) + " scale " + std::to_string(scale));
        expect_cast_matches(input, device_input.get(), shape, format, scale, Copies::kBoth);
      }
    }
  }
}

TEST(Fp8TensorwiseGpu, CastRecordsAmaxByAtomicMax) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{300, 1000};
  const auto input = testing::random_bf16(shape.rows, shape.cols, 21);
  const auto device_input = testing::upload(input);
  const float amax = reference_amax(input.data(), input.size());
  const auto scale = testing::upload(std::vector<float>{1.0f});
  testing::PoisonedBuffer<uint8_t> rowwise(input.size());
  Fp8CastTargets targets;
  targets.rowwise = rowwise.get();

  for (float previous : {0.0f, 2 * amax}) {
    const auto record = testing::upload(std::vector<float>{previous});
    cast_fp8(device_input.get(), shape.rows, shape.cols, ElementFormat::kE4M3, scale.get(), targets,
             record.get(), nullptr);
    EXPECT_EQ(testing::download(record.get(), 1)[0], std::max(previous, amax));
  }
}

TEST(Fp8TensorwiseGpu, QuantizeCurrentMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  for (const Shape& shape : {Shape{257, 391}, Shape{1040, 272}}) {
    SCOPED_TRACE(testing::shape_name(shape));
    const auto input = testing::random_bf16(shape.rows, shape.cols, 31);
    const auto device_input = testing::upload(input);
    testing::PoisonedBuffer<float> state_buffer(Fp8CurrentScalingState::kBufferFloats);
    const auto state = Fp8CurrentScalingState::in_buffer(state_buffer.get());
    testing::PoisonedBuffer<uint8_t> rowwise(input.size()), columnwise(input.size());
    quantize_fp8_current(device_input.get(), shape.rows, shape.cols, ElementFormat::kE5M2, state,
                         {rowwise.get(), columnwise.get()}, nullptr);

    const float amax = reference_amax(input.data(), input.size());
    const Fp8Scales scales = reference_current_scale(amax, ElementFormat::kE5M2);
    std::vector<uint8_t> expected_rowwise(input.size()), expected_columnwise(input.size());
    reference_cast_fp8(input.data(), shape.rows, shape.cols, ElementFormat::kE5M2, scales.scale,
                       expected_rowwise.data(), expected_columnwise.data());
    EXPECT_EQ(testing::download(state.amax, 1)[0], amax);
    EXPECT_EQ(testing::download(state.scale, 1)[0], scales.scale);
    EXPECT_EQ(testing::download(state.scale_inv, 1)[0], scales.scale_inv);
    EXPECT_EQ(testing::mismatches(rowwise.contents(), expected_rowwise), "");
    EXPECT_EQ(testing::mismatches(columnwise.contents(), expected_columnwise), "");
  }
}

// Argument checks fire before anything is enqueued, so these need no GPU. The pointers are
// never dereferenced.
TEST(Fp8TensorwiseArguments, RefusedWithTheOffendingValue) {
  const auto* input = reinterpret_cast<const __nv_bfloat16*>(16);
  auto* bytes = reinterpret_cast<uint8_t*>(16);
  auto* floats = reinterpret_cast<float*>(16);
  std::string message = testing::thrown_message<std::invalid_argument>([&] {
    cast_fp8(input, 0, 16, ElementFormat::kE4M3, floats, {bytes, nullptr}, nullptr, nullptr);
  });
  EXPECT_TRUE(testing::contains(message, "rows") && testing::contains(message, "0")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    cast_fp8(input, 16, -3, ElementFormat::kE4M3, floats, {bytes, nullptr}, nullptr, nullptr);
  });
  EXPECT_TRUE(testing::contains(message, "-3")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    cast_fp8(input, 16, 16, ElementFormat::kE4M3, floats, {nullptr, nullptr}, nullptr, nullptr);
  });
  EXPECT_TRUE(testing::contains(message, "at least one copy")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    cast_fp8(input, 16, 16, ElementFormat::kBF16, floats, {bytes, nullptr}, nullptr, nullptr);
  });
  EXPECT_TRUE(testing::contains(message, "BF16")) << message;
  message = testing::thrown_message<std::invalid_argument>([&] {
    cast_fp8(input, 16, 16, ElementFormat::kE4M3, nullptr, {bytes, nullptr}, nullptr, nullptr);
  });
  EXPECT_TRUE(testing::contains(message, "scale")) << message;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { compute_amax(input, 0, floats, nullptr); });
  EXPECT_TRUE(testing::contains(message, "count") && testing::contains(message, "0")) << message;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { compute_current_scale(floats, ElementFormat::kE2M1, floats, floats, nullptr); });
  EXPECT_TRUE(testing::contains(message, "E2M1")) << message;
}

}  // namespace
}  // namespace gemmscope
