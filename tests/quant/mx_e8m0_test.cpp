// E8M0 block scales: the reference codec on hand-checked amaxes, and the GPU's bit-level
// conversions swept against it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "quant/detail/block_codecs.h"
#include "quant/float_bits.h"
#include "quant/mxfp8/detail/scaling.h"
#include "quant/mxfp8/e8m0.h"

namespace gemmscope {
namespace {

TEST(E8m0, PowersOfTwoAreKept) {
  EXPECT_EQ(encode_e8m0_round_up(1.0f), 127);
  EXPECT_EQ(encode_e8m0_round_up(0.5f), 126);
  EXPECT_EQ(encode_e8m0_round_up(1024.0f), 137);
}

TEST(E8m0, EverythingElseRoundsUp) {
  EXPECT_EQ(encode_e8m0_round_up(1.5f), 128);   // 2^1
  EXPECT_EQ(encode_e8m0_round_up(0.75f), 127);  // 2^0
  EXPECT_EQ(encode_e8m0_round_up(1.0000001f), 128);
  EXPECT_EQ(encode_e8m0_round_up(0.3f), 126);  // 2^-1
}

// The MXFP8 block scale of a few amaxes: 2^ceil(log2(amax / 448)).
TEST(E8m0, Mxfp8ScalesOfHandCheckedAmaxes) {
  // 448 / 448 = 1: scale 2^0, the block's amax stays 448.
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(448.0f)), 127);
  // 449 / 448 just above 1: scale 2, amax becomes 224.5.
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(449.0f)), 128);
  // 1 / 448 = 0.00223: the power of two at or above is 2^-8 = 0.0039 (2^-9 = 0.00195 is below).
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(1.0f)), 119);
  // 3.5 / 448 = 2^-7 exactly, although 1/448 is rounded in FP32: the product still rounds to
  // 2^-7 and is not pushed up a binade.
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(3.5f)), 120);
  // The next BF16 value above 3.5 needs the next power of two.
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(3.515625f)), 121);
  // An all-zero block.
  EXPECT_EQ(encode_e8m0_round_up(mxfp8_scale_target(0.0f)), 0);
}

TEST(E8m0, RangeEndsAndNaN) {
  EXPECT_EQ(encode_e8m0_round_up(std::ldexp(1.0f, -127)), 0);
  EXPECT_EQ(encode_e8m0_round_up(std::ldexp(1.0f, -140)), 0);
  EXPECT_EQ(encode_e8m0_round_up(std::ldexp(1.5f, -127)), 1);  // rounds up to 2^-126
  EXPECT_EQ(encode_e8m0_round_up(std::ldexp(1.0f, -126)), 1);
  EXPECT_EQ(encode_e8m0_round_up(std::ldexp(1.0f, 127)), 254);
  EXPECT_EQ(encode_e8m0_round_up(std::numeric_limits<float>::max()), 254);
  EXPECT_EQ(encode_e8m0_round_up(std::numeric_limits<float>::infinity()), 254);
  EXPECT_EQ(encode_e8m0_round_up(std::numeric_limits<float>::quiet_NaN()), 255);
}

TEST(E8m0, Decode) {
  EXPECT_EQ(decode_e8m0(127), 1.0f);
  EXPECT_EQ(decode_e8m0(130), 8.0f);
  EXPECT_EQ(decode_e8m0(0), std::ldexp(1.0f, -127));
  EXPECT_EQ(decode_e8m0(254), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(decode_e8m0(255)));
}

// The GPU's bit-level rounding agrees with the reference on a sweep over every binade, the
// subnormals and the specials.
TEST(E8m0, KernelRoundingMatchesReference) {
  int64_t checked = 0;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4093) {
    const float value = fp32_from_bits(static_cast<uint32_t>(bits) & 0x7FFFFFFFu);
    ASSERT_EQ(detail::e8m0_round_up(value), encode_e8m0_round_up(value)) << "bits " << bits;
    ++checked;
  }
  for (int exponent = -149; exponent <= 127; ++exponent) {
    for (const float fraction : {1.0f, 1.0000001f, 1.5f, 1.9999999f}) {
      const float value = std::ldexp(fraction, exponent);
      ASSERT_EQ(detail::e8m0_round_up(value), encode_e8m0_round_up(value)) << value;
    }
  }
  for (const float special :
       {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_EQ(detail::e8m0_round_up(special), encode_e8m0_round_up(special)) << special;
  }
  EXPECT_GT(checked, 500000);
}

TEST(E8m0, KernelScaleFactorsAreExact) {
  for (int code = 0; code < 255; ++code) {
    const auto e = static_cast<uint8_t>(code);
    EXPECT_EQ(detail::e8m0_value(e), decode_e8m0(e)) << code;
    EXPECT_EQ(detail::e8m0_reciprocal(e), std::ldexp(1.0f, 127 - code)) << code;
  }
  EXPECT_TRUE(std::isnan(detail::e8m0_value(255)));
  EXPECT_TRUE(std::isnan(detail::e8m0_reciprocal(255)));
}

}  // namespace
}  // namespace gemmscope
