// The amax -> scale rules of the FP8 recipes (after TransformerEngine), branch by branch.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"

namespace gemmscope {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kFltMax = std::numeric_limits<float>::max();

TEST(Fp8ScalePolicy, CurrentScaleMapsAmaxToFormatMax) {
  EXPECT_EQ(scale_from_amax(448.0f, kE4M3MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(2.0f, kE4M3MaxFinite, false), 224.0f);
  EXPECT_EQ(scale_from_amax(3.0f, kE4M3MaxFinite, false), 448.0f / 3.0f);
  EXPECT_EQ(scale_from_amax(57344.0f, kE5M2MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(0.5f, kE5M2MaxFinite, false), 114688.0f);
}

TEST(Fp8ScalePolicy, CurrentScaleIsOneWhenAmaxIsUnusable) {
  EXPECT_EQ(scale_from_amax(0.0f, kE4M3MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(-1.0f, kE4M3MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(kInf, kE4M3MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(kNan, kE4M3MaxFinite, false), 1.0f);
  EXPECT_EQ(scale_from_amax(0.0f, kE4M3MaxFinite, true), 1.0f);
}

TEST(Fp8ScalePolicy, OverflowingScaleBecomesFltMax) {
  const float tiny = 1e-38f;  // 448 / 1e-38 overflows FP32
  EXPECT_EQ(scale_from_amax(tiny, kE4M3MaxFinite, false), kFltMax);
  EXPECT_EQ(scale_from_amax(std::ldexp(1.0f, -140), kE4M3MaxFinite, false), kFltMax);
  // Power-of-2 rounding of FLT_MAX keeps only its exponent: 2^127.
  EXPECT_EQ(scale_from_amax(tiny, kE4M3MaxFinite, true), std::ldexp(1.0f, 127));
}

TEST(Fp8ScalePolicy, PowerOfTwoScalesRoundDown) {
  EXPECT_EQ(scale_from_amax(3.0f, kE4M3MaxFinite, true), 128.0f);  // 149.33 -> 128
  EXPECT_EQ(scale_from_amax(448.0f, kE4M3MaxFinite, true), 1.0f);
  EXPECT_EQ(scale_from_amax(500.0f, kE4M3MaxFinite, true), 0.5f);   // 0.896 -> 0.5
  EXPECT_EQ(scale_from_amax(100.0f, kE4M3MaxFinite, true), 4.0f);   // 4.48 -> 4
  EXPECT_EQ(scale_from_amax(1.75f, kE4M3MaxFinite, true), 256.0f);  // exactly 256 stays
}

TEST(Fp8ScalePolicy, DelayedScaleKeepsPreviousWhenAmaxIsUnusable) {
  EXPECT_EQ(delayed_scale_from_amax(2.0f, kE4M3MaxFinite, 7.0f), 224.0f);
  EXPECT_EQ(delayed_scale_from_amax(5.0f, kE4M3MaxFinite, 7.0f), 448.0f / 5.0f);
  EXPECT_EQ(delayed_scale_from_amax(0.0f, kE4M3MaxFinite, 7.0f), 7.0f);
  EXPECT_EQ(delayed_scale_from_amax(-3.0f, kE4M3MaxFinite, 7.0f), 7.0f);
  EXPECT_EQ(delayed_scale_from_amax(kInf, kE4M3MaxFinite, 7.0f), 7.0f);
  EXPECT_EQ(delayed_scale_from_amax(kNan, kE5M2MaxFinite, 7.0f), 7.0f);
}

TEST(Fp8ScalePolicy, DelayedScaleOverflowBecomesFltMax) {
  EXPECT_EQ(delayed_scale_from_amax(1e-39f, kE4M3MaxFinite, 7.0f), kFltMax);
  EXPECT_EQ(delayed_scale_from_amax(0.0f, kE4M3MaxFinite, kInf), kFltMax);
}

TEST(Fp8ScalePolicy, ScaleInverseIsRoundedReciprocal) {
  EXPECT_EQ(scale_inverse(224.0f), 1.0f / 224.0f);
  EXPECT_EQ(scale_inverse(0.5f), 2.0f);
  // 1 / FLT_MAX is subnormal; it must not be flushed to zero.
  EXPECT_GT(scale_inverse(kFltMax), 0.0f);
  EXPECT_EQ(scale_inverse(kFltMax), 1.0f / kFltMax);
}

}  // namespace
}  // namespace gemmscope
