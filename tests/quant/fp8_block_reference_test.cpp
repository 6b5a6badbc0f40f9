// Hand-checked cases of the host references of the FP8 block quantizers: one outlier per block,
// power-of-2 scales, the two directions of 1x128, the shared 128x128 scale, padding slots.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "quant/fp8/block_reference.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

std::vector<__nv_bfloat16> filled(int64_t count, float value) {
  return std::vector<__nv_bfloat16>(count, __float2bfloat16(value));
}

TEST(Fp8BlockReference, OneOutlierSetsTheRowBlockScale) {
  // One row of 128 ones with a 100 at column 7: amax 100, scale 448/100 = 4.48 -> 4 (pow 2).
  auto input = filled(128, 1.0f);
  input[7] = __float2bfloat16(100.0f);
  std::vector<uint8_t> rowwise(128), columnwise(128);
  std::vector<float> rowwise_scales(vec128_scale_count(1, 128));     // [1][4]
  std::vector<float> columnwise_scales(vec128_scale_count(128, 1));  // [1][128]
  reference_quantize_fp8_1x128(input.data(), 1, 128, rowwise.data(), rowwise_scales.data(),
                               columnwise.data(), columnwise_scales.data());

  EXPECT_EQ(rowwise_scales, (std::vector<float>{0.25f, 1.0f, 1.0f, 1.0f}));  // 3 padding slots
  EXPECT_EQ(rowwise[0], 0x48);                                               // 1 * 4 = 4
  EXPECT_EQ(rowwise[7], 0x7C);  // 100 * 4 = 400: halfway 384 (even) / 416 -> 384

  // Columnwise blocks run along the original rows: here one element each, so every element is
  // its own block. 1 -> scale 448 -> 256; 100 -> 4.
  EXPECT_EQ(columnwise[0], 0x78);  // 1 * 256 = 256
  EXPECT_EQ(columnwise[7], 0x7C);
  EXPECT_EQ(columnwise_scales[0], 1.0f / 256.0f);
  EXPECT_EQ(columnwise_scales[7], 0.25f);
}

TEST(Fp8BlockReference, ScalesArePowersOfTwoRoundedDown) {
  // amax 3: 448 / 3 = 149.3 -> 128, so 3 maps to 384, not to 448.
  auto input = filled(4, 1.0f);
  input[2] = __float2bfloat16(-3.0f);
  std::vector<uint8_t> rowwise(4);
  std::vector<float> scales(vec128_scale_count(1, 4));
  reference_quantize_fp8_1x128(input.data(), 1, 4, rowwise.data(), scales.data(), nullptr, nullptr);
  EXPECT_EQ(scales[0], 1.0f / 128.0f);
  EXPECT_EQ(rowwise[2], 0xFC);  // -384
  EXPECT_EQ(rowwise[0], 0x70);  // 128
}

TEST(Fp8BlockReference, PartialEdgeBlocksAndPadding) {
  // 2 rows x 130 cols: block column 1 holds only cols 128 and 129.
  auto input = filled(2 * 130, 1.0f);
  input[1 * 130 + 129] = __float2bfloat16(8.0f);  // the only non-one in row 1, block 1
  std::vector<uint8_t> rowwise(2 * 130);
  std::vector<float> scales(vec128_scale_count(2, 130));  // [2][4]
  reference_quantize_fp8_1x128(input.data(), 2, 130, rowwise.data(), scales.data(), nullptr,
                               nullptr);
  EXPECT_EQ(scales.size(), 8u);
  EXPECT_EQ(scales[vec128_scale_index(0, 0, 2)], 1.0f / 256.0f);  // amax 1
  EXPECT_EQ(scales[vec128_scale_index(1, 1, 2)], 1.0f / 32.0f);   // amax 8: 56 -> 32
  EXPECT_EQ(scales[vec128_scale_index(0, 1, 2)], 1.0f / 256.0f);
  EXPECT_EQ(scales[2], kScalePadding);
  EXPECT_EQ(scales[3], kScalePadding);
  EXPECT_EQ(scales[6], kScalePadding);
  EXPECT_EQ(scales[7], kScalePadding);
}

TEST(Fp8BlockReference, WeightBlocksShareOneScaleTransposedForTheColumnwiseCopy) {
  // 130 x 2: block (0, 0) is rows 0..127 with one 8 (scale 56 -> 32); block (1, 0) is rows
  // 128..129, all zero (amax 0 -> scale 1).
  auto input = filled(130 * 2, 1.0f);
  input[5 * 2 + 1] = __float2bfloat16(8.0f);
  for (int i = 128 * 2; i < 130 * 2; ++i)
    input[i] = __float2bfloat16(0.0f);
  std::vector<uint8_t> rowwise(260), columnwise(260);
  std::vector<float> rowwise_scales(block128_scale_count(130, 2));     // [2][4]
  std::vector<float> columnwise_scales(block128_scale_count(2, 130));  // [1][4]
  reference_quantize_fp8_128x128(input.data(), 130, 2, rowwise.data(), rowwise_scales.data(),
                                 columnwise.data(), columnwise_scales.data());
  EXPECT_EQ(rowwise_scales, (std::vector<float>{1.0f / 32, 1, 1, 1, 1.0f, 1, 1, 1}));
  EXPECT_EQ(columnwise_scales, (std::vector<float>{1.0f / 32, 1.0f, 1, 1}));
  EXPECT_EQ(rowwise[5 * 2 + 1], 0x78);       // 8 * 32 = 256
  EXPECT_EQ(rowwise[0], 0x60);               // 1 * 32 = 32
  EXPECT_EQ(columnwise[1 * 130 + 5], 0x78);  // the same element, transposed
  EXPECT_EQ(rowwise[129 * 2], 0x00);
}

TEST(Fp8BlockReference, NanIsIgnoredByBlockAmaxAndStaysNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<__nv_bfloat16> input = {__float2bfloat16(nan), __float2bfloat16(2.0f)};
  std::vector<uint8_t> rowwise(2);
  std::vector<float> scales(vec128_scale_count(1, 2));
  reference_quantize_fp8_1x128(input.data(), 1, 2, rowwise.data(), scales.data(), nullptr, nullptr);
  EXPECT_EQ(scales[0], 1.0f / 128.0f);  // amax 2: 224 -> 128
  EXPECT_EQ(rowwise[0], 0x7F);
  EXPECT_EQ(rowwise[1], 0x78);  // 256
}

}  // namespace
}  // namespace gemmscope
