// GPU tests of the FP8 block quantizers (1x128, 128x128) against their host references, bit
// for bit: data, scales and padding slots, on odd and aligned shapes, into poisoned and guarded
// buffers.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/fp8/block.h"
#include "quant/fp8/block_reference.h"
#include "quant/fp8/scale_layout.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::Shape;

const Shape kShapes[] = {{1, 1},   {257, 391}, {128, 128},  {300, 1000}, {256, 512},
                         {48, 80}, {130, 4},   {1040, 272}, {5, 640}};

enum class Kind { k1x128, k128x128 };

std::string name(const Shape& shape, Kind kind, bool rowwise, bool columnwise) {
  return testing::shape_name(shape) + (kind == Kind::k1x128 ? " 1x128" : " 128x128") +
         (rowwise ? " rowwise" : "") + (columnwise ? " columnwise" : "");
}

int64_t scale_count(Kind kind, int64_t rows, int64_t cols) {
  return kind == Kind::k1x128 ? vec128_scale_count(rows, cols) : block128_scale_count(rows, cols);
}

void expect_block_quantization_matches(const std::vector<__nv_bfloat16>& input, const Shape& shape,
                                       Kind kind, bool want_rowwise, bool want_columnwise) {
  SCOPED_TRACE(name(shape, kind, want_rowwise, want_columnwise));
  const int64_t count = shape.rows * shape.cols;
  const auto device_input = testing::upload(input);
  const testing::QuantizerOutputs outputs(count, scale_count(kind, shape.rows, shape.cols),
                                          scale_count(kind, shape.cols, shape.rows), want_rowwise,
                                          want_columnwise);
  const auto targets = outputs.targets<Fp8BlockTargets>();
  if (kind == Kind::k1x128) {
    quantize_fp8_1x128(device_input.get(), shape.rows, shape.cols, targets, nullptr);
  } else {
    quantize_fp8_128x128(device_input.get(), shape.rows, shape.cols, targets, nullptr);
  }

  std::vector<uint8_t> expected_rowwise(count), expected_columnwise(count);
  std::vector<float> expected_rowwise_scales(outputs.rowwise_scale_count());
  std::vector<float> expected_columnwise_scales(outputs.columnwise_scale_count());
  const auto reference =
      kind == Kind::k1x128 ? reference_quantize_fp8_1x128 : reference_quantize_fp8_128x128;
  reference(input.data(), shape.rows, shape.cols, expected_rowwise.data(),
            expected_rowwise_scales.data(), expected_columnwise.data(),
            expected_columnwise_scales.data());

  outputs.expect_reference(expected_rowwise, expected_rowwise_scales, expected_columnwise,
                           expected_columnwise_scales);
}

TEST(Fp8BlockGpu, OneByOneTwentyEightMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 500;
  for (const Shape& shape : kShapes) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    expect_block_quantization_matches(input, shape, Kind::k1x128, true, true);
    expect_block_quantization_matches(input, shape, Kind::k1x128, true, false);
    expect_block_quantization_matches(input, shape, Kind::k1x128, false, true);
  }
}

TEST(Fp8BlockGpu, OneTwentyEightSquaredMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 600;
  for (const Shape& shape : kShapes) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    expect_block_quantization_matches(input, shape, Kind::k128x128, true, true);
    expect_block_quantization_matches(input, shape, Kind::k128x128, true, false);
    expect_block_quantization_matches(input, shape, Kind::k128x128, false, true);
  }
}

// The packed abs-max must keep BF16 subnormals (their blocks get huge power-of-2 scales) and
// treat a block of NaNs as amax 0 (scale 1), exactly as the host reference does.
TEST(Fp8BlockGpu, BlocksOfSubnormalsAndOfNaNs) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{256, 384};
  auto input = testing::random_bf16(shape.rows, shape.cols, 701);
  const float smallest_normal = std::numeric_limits<float>::min();
  for (int64_t c = 0; c < 128; ++c) {
    // Row 3, first 1x128 block: subnormals of both signs and different magnitudes.
    input[3 * shape.cols + c] =
        __float2bfloat16((c % 2 ? -1.0f : 1.0f) * smallest_normal * (1 + c % 7) / 16.0f);
    // Row 7, second 1x128 block: all NaN.
    input[7 * shape.cols + 128 + c] = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  }
  expect_block_quantization_matches(input, shape, Kind::k1x128, true, true);
  expect_block_quantization_matches(input, shape, Kind::k128x128, true, true);
}

TEST(Fp8BlockGpu, BlocksWithZerosInfAndNan) {
  GEMMSCOPE_REQUIRE_GPU();
  // A 300x1000 tensor with an all-zero 128x128 block and 1x128 row block, an infinity (its
  // blocks fall back to scale 1 and saturate) and NaNs (ignored by the amax, kept as NaN).
  const Shape shape{300, 1000};
  auto input = testing::random_bf16(shape.rows, shape.cols, 700);
  for (int64_t r = 128; r < 256; ++r) {
    for (int64_t c = 256; c < 384; ++c)
      input[r * shape.cols + c] = __float2bfloat16(0.0f);
  }
  for (int64_t c = 0; c < 128; ++c)
    input[5 * shape.cols + c] = __float2bfloat16(0.0f);
  input[10 * shape.cols + 700] = __float2bfloat16(std::numeric_limits<float>::infinity());
  input[290 * shape.cols + 999] = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  input[0] = __float2bfloat16(-std::numeric_limits<float>::quiet_NaN());
  expect_block_quantization_matches(input, shape, Kind::k1x128, true, true);
  expect_block_quantization_matches(input, shape, Kind::k128x128, true, true);
}

TEST(Fp8BlockArguments, RefusedWithTheOffendingValue) {
  const auto* input = reinterpret_cast<const __nv_bfloat16*>(16);
  auto* bytes = reinterpret_cast<uint8_t*>(16);
  Fp8BlockTargets missing_scales;
  missing_scales.rowwise = bytes;
  std::string message = testing::thrown_message<std::invalid_argument>(
      [&] { quantize_fp8_1x128(input, 16, 16, missing_scales, nullptr); });
  EXPECT_TRUE(testing::contains(message, "rowwise_scale_inv")) << message;
  Fp8BlockTargets missing_columnwise_scales;
  missing_columnwise_scales.columnwise = bytes;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { quantize_fp8_128x128(input, 16, 16, missing_columnwise_scales, nullptr); });
  EXPECT_TRUE(testing::contains(message, "columnwise_scale_inv")) << message;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { quantize_fp8_128x128(input, 16, 0, missing_scales, nullptr); });
  EXPECT_TRUE(testing::contains(message, "cols") && testing::contains(message, "0")) << message;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { quantize_fp8_1x128(input, 16, 16, Fp8BlockTargets{}, nullptr); });
  EXPECT_TRUE(testing::contains(message, "at least one copy")) << message;
}

}  // namespace
}  // namespace gemmscope
