// Stochastic rounding to E2M1 is unbiased: the mean of many rounded copies of a value between
// two E2M1 neighbours converges to the value, while round-to-nearest stays off by a fixed bias.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "quant/nvfp4/detail/stochastic_rounding.h"
#include "quant/nvfp4/e2m1.h"

namespace gemmscope {
namespace {

// The gap between the E2M1 neighbours of |value| (< 6).
double gap_around(double magnitude) {
  return magnitude < 2.0 ? 0.5 : magnitude < 4.0 ? 1.0 : 2.0;
}

TEST(StochasticRounding, MeanConvergesToTheValue) {
  constexpr int kDraws = 1 << 18;
  for (const float value :
       {0.1f, 0.3f, 0.7f, 1.2f, 1.3f, 1.9f, 2.2f, 2.9f, 3.3f, 4.7f, 5.5f, -1.1f, -4.4f}) {
    double sum = 0.0;
    for (int i = 0; i < kDraws; ++i) {
      sum += decode_e2m1(encode_e2m1_stochastic(
          value, stochastic_rounding_bits(2024, kRowwiseRoundingStream, static_cast<uint64_t>(i))));
    }
    const double mean = sum / kDraws;
    // One draw lands on a neighbour: standard deviation at most gap / 2, so the mean's is at
    // most gap / (2 sqrt(N)) = gap / 1024. Six of those, plus the 2^-16 resolution of the
    // rounding probability.
    const double gap = gap_around(std::fabs(value));
    const double bound = gap * (6.0 / (2.0 * std::sqrt(static_cast<double>(kDraws))) + 1.0 / 65536);
    EXPECT_NEAR(mean, value, bound) << "value " << value;
    // Round-to-nearest of the same value is biased by more than the bound: the test could tell.
    EXPECT_GT(std::fabs(decode_e2m1(encode_e2m1(value)) - value), 10 * bound) << value;
  }
}

TEST(StochasticRounding, RoundsUpWithTheFractionOfTheGap) {
  // 4.5 is a quarter of the way from 4 to 6.
  constexpr int kDraws = 1 << 16;
  int up = 0;
  for (int i = 0; i < kDraws; ++i) {
    up += encode_e2m1_stochastic(4.5f, stochastic_rounding_bits(5, kColumnwiseRoundingStream,
                                                                static_cast<uint64_t>(i))) == 0x7;
  }
  EXPECT_NEAR(static_cast<double>(up) / kDraws, 0.25, 0.01);
}

}  // namespace
}  // namespace gemmscope
