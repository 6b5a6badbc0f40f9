// Hand-checked cases of the host references of the tensorwise, delayed-scaling and
// dequantization kernels.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "quant/fp8/reference.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::vector<__nv_bfloat16> bf16(const std::vector<float>& values) {
  std::vector<__nv_bfloat16> result;
  for (float v : values)
    result.push_back(__float2bfloat16(v));
  return result;
}

TEST(Fp8Reference, AmaxIgnoresNanAndCountsInf) {
  EXPECT_EQ(reference_amax(bf16({1.0f, -3.0f, kNan, 2.0f}).data(), 4), 3.0f);
  EXPECT_EQ(reference_amax(bf16({1.0f, -kInf, 2.0f}).data(), 3), kInf);
  EXPECT_EQ(reference_amax(bf16({kNan, kNan}).data(), 2), 0.0f);
  EXPECT_EQ(reference_amax(bf16({0.0f, -0.0f}).data(), 2), 0.0f);
}

TEST(Fp8Reference, CurrentScaleAndItsInverse) {
  const Fp8Scales e4m3 = reference_current_scale(2.0f, ElementFormat::kE4M3);
  EXPECT_EQ(e4m3.scale, 224.0f);
  EXPECT_EQ(e4m3.scale_inv, 1.0f / 224.0f);
  const Fp8Scales e5m2 = reference_current_scale(57344.0f, ElementFormat::kE5M2);
  EXPECT_EQ(e5m2.scale, 1.0f);
  EXPECT_EQ(e5m2.scale_inv, 1.0f);
  const Fp8Scales zero = reference_current_scale(0.0f, ElementFormat::kE4M3);
  EXPECT_EQ(zero.scale, 1.0f);
  EXPECT_EQ(zero.scale_inv, 1.0f);
}

TEST(Fp8Reference, CastWritesRowwiseAndTransposedCopies) {
  // [[1, -2, 448], [0.5, 1000, NaN]] at scale 1: 1000 saturates, NaN stays NaN.
  const auto input = bf16({1.0f, -2.0f, 448.0f, 0.5f, 1000.0f, kNan});
  std::vector<uint8_t> rowwise(6), columnwise(6);
  reference_cast_fp8(input.data(), 2, 3, ElementFormat::kE4M3, 1.0f, rowwise.data(),
                     columnwise.data());
  EXPECT_EQ(rowwise, (std::vector<uint8_t>{0x38, 0xC0, 0x7E, 0x30, 0x7E, 0x7F}));
  EXPECT_EQ(columnwise, (std::vector<uint8_t>{0x38, 0x30, 0xC0, 0x7E, 0x7E, 0x7F}));

  // Scale 0.5 with E5M2: 1 -> 0.5 (0x38), -2 -> -1 (0xBC).
  std::vector<uint8_t> scaled(6);
  reference_cast_fp8(input.data(), 2, 3, ElementFormat::kE5M2, 0.5f, scaled.data(), nullptr);
  EXPECT_EQ(scaled[0], 0x38);
  EXPECT_EQ(scaled[1], 0xBC);
}

TEST(Fp8Reference, DelayedUpdateReducesThenRolls) {
  // Slot 0 holds this step's amax (5); the oldest entry (slot 1) drops out after the reduction.
  std::vector<float> history = {5.0f, 1.0f, 3.0f, 2.0f};
  float scale = 1.0f, scale_inv = 1.0f;
  reference_update_delayed_scaling(history.data(), 4, ElementFormat::kE4M3, &scale, &scale_inv);
  EXPECT_EQ(history, (std::vector<float>{0.0f, 3.0f, 2.0f, 5.0f}));
  EXPECT_EQ(scale, 448.0f / 5.0f);
  EXPECT_EQ(scale_inv, 1.0f / (448.0f / 5.0f));

  // The max is over the whole window: an older, larger amax still wins.
  history[0] = 1.0f;
  reference_update_delayed_scaling(history.data(), 4, ElementFormat::kE4M3, &scale, &scale_inv);
  EXPECT_EQ(scale, 448.0f / 5.0f);
  EXPECT_EQ(history, (std::vector<float>{0.0f, 2.0f, 5.0f, 1.0f}));
}

TEST(Fp8Reference, DelayedUpdateKeepsScaleForZeroNanAndInfAmax) {
  float scale = 7.0f, scale_inv = 0.0f;
  std::vector<float> zeros(4, 0.0f);
  reference_update_delayed_scaling(zeros.data(), 4, ElementFormat::kE4M3, &scale, &scale_inv);
  EXPECT_EQ(scale, 7.0f);
  EXPECT_EQ(scale_inv, 1.0f / 7.0f);

  // NaN entries are ignored by the "max" reduction (fmaxf): amax 0, scale kept. The NaN rolls on.
  std::vector<float> with_nan = {kNan, 0.0f, 0.0f, 0.0f};
  reference_update_delayed_scaling(with_nan.data(), 4, ElementFormat::kE4M3, &scale, &scale_inv);
  EXPECT_EQ(scale, 7.0f);
  EXPECT_TRUE(std::isnan(with_nan[3]));

  // A NaN next to a usable amax does not hide it.
  std::vector<float> nan_and_two = {2.0f, kNan, 0.0f, 0.0f};
  reference_update_delayed_scaling(nan_and_two.data(), 4, ElementFormat::kE5M2, &scale, &scale_inv);
  EXPECT_EQ(scale, 57344.0f / 2.0f);

  // inf is not finite: the previous scale stays.
  std::vector<float> with_inf = {kInf, 1.0f, 0.0f, 0.0f};
  reference_update_delayed_scaling(with_inf.data(), 4, ElementFormat::kE5M2, &scale, &scale_inv);
  EXPECT_EQ(scale, 57344.0f / 2.0f);
}

TEST(Fp8Reference, DelayedUpdateWithHistoryOfOne) {
  std::vector<float> history = {3.0f};
  float scale = 1.0f, scale_inv = 1.0f;
  reference_update_delayed_scaling(history.data(), 1, ElementFormat::kE4M3, &scale, &scale_inv);
  EXPECT_EQ(history[0], 0.0f);
  EXPECT_EQ(scale, 448.0f / 3.0f);
}

TEST(Fp8Reference, DequantizeReadsEachLayout) {
  // kTensor: one factor.
  const std::vector<uint8_t> pair = {0x38, 0xC0};  // 1, -2 (E4M3)
  std::vector<float> out(2);
  const float half = 0.5f;
  reference_dequantize_fp8(pair.data(), ElementFormat::kE4M3, 1, 2, &half, ScaleLayout::kTensor,
                           out.data());
  EXPECT_EQ(out, (std::vector<float>{0.5f, -1.0f}));

  // kVec128, a 2x130 operand: element (1, 129) is in block column 1, slot 1 * 4 + 1 = 5.
  std::vector<uint8_t> ones(2 * 130, 0x38);
  std::vector<float> vec_scales = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> vec_out(2 * 130);
  reference_dequantize_fp8(ones.data(), ElementFormat::kE4M3, 2, 130, vec_scales.data(),
                           ScaleLayout::kVec128, vec_out.data());
  EXPECT_EQ(vec_out[0], 1.0f);
  EXPECT_EQ(vec_out[127], 1.0f);
  EXPECT_EQ(vec_out[128], 5.0f);            // (0, 128): slot 4
  EXPECT_EQ(vec_out[1 * 130 + 5], 2.0f);    // (1, 5): slot 1
  EXPECT_EQ(vec_out[1 * 130 + 129], 6.0f);  // (1, 129): slot 5

  // kBlock128x128, a 130x2 operand: rows 128.. are block row 1, slot 1 * 4 + 0 = 4.
  std::vector<float> block_out(130 * 2);
  reference_dequantize_fp8(ones.data(), ElementFormat::kE4M3, 130, 2, vec_scales.data(),
                           ScaleLayout::kBlock128x128, block_out.data());
  EXPECT_EQ(block_out[127 * 2 + 1], 1.0f);
  EXPECT_EQ(block_out[129 * 2 + 1], 5.0f);

  EXPECT_THROW(reference_dequantize_fp8(pair.data(), ElementFormat::kE4M3, 1, 2, &half,
                                        ScaleLayout::kVec32Ue8m0, out.data()),
               std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
