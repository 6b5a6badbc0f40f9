#include "bench/stopping_rule.h"

#include <gtest/gtest.h>

#include <vector>

#include "bench/sample_statistics.h"

namespace gemmscope {
namespace {

// 20 samples 100.00, 100.01, ..., 100.19: rank 6, interval [x_(6), x_(15)] =
// [100.05, 100.14], median (100.09 + 100.10) / 2 = 100.095: half-width 0.045%.
std::vector<double> tight_series() {
  std::vector<double> samples;
  for (int k = 0; k < 20; ++k)
    samples.push_back(100 + 0.01 * k);
  return samples;
}

// 20 samples 98.0, 98.2, ..., 101.8 (2% either side of 100): interval [x_(6), x_(15)] =
// [99.0, 100.8], median (99.8 + 100.0) / 2 = 99.9: half-width 0.9 / 99.9 = 0.9009%.
std::vector<double> spread_series() {
  std::vector<double> samples;
  for (int k = 0; k < 20; ++k)
    samples.push_back(98 + 0.2 * k);
  return samples;
}

TEST(NoiseTarget, HandComputedIntervals) {
  EXPECT_NEAR(relative_half_width_pct(median_interval(tight_series())), 100 * 0.045 / 100.095,
              1e-9);
  EXPECT_NEAR(relative_half_width_pct(median_interval(spread_series())), 90 / 99.9, 1e-9);
}

TEST(NoiseTarget, TightSeriesMeetsHalfAPercent) {
  SamplingSettings settings;  // 0.5%, at least 10 samples
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
  settings.max_noise_pct = 0.05;  // 0.0450% <= 0.05%
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
  settings.max_noise_pct = 0.04;
  EXPECT_FALSE(noise_target_met(settings, tight_series()));
}

TEST(NoiseTarget, TwoPercentSpreadOfTwentyDoesNot) {
  SamplingSettings settings;
  EXPECT_FALSE(noise_target_met(settings, spread_series()));
  settings.max_noise_pct = 0.9;  // 0.9009% is just above
  EXPECT_FALSE(noise_target_met(settings, spread_series()));
  settings.max_noise_pct = 0.91;
  EXPECT_TRUE(noise_target_met(settings, spread_series()));
}

TEST(NoiseTarget, NeedsMinSamples) {
  SamplingSettings settings;
  settings.min_samples = 21;
  EXPECT_FALSE(noise_target_met(settings, tight_series()));
  settings.min_samples = 20;
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
  // Nine identical samples: an interval of width 0 exists, but 9 < 10 samples.
  EXPECT_FALSE(noise_target_met(SamplingSettings{}, std::vector<double>(9, 1.0)));
  EXPECT_TRUE(noise_target_met(SamplingSettings{}, std::vector<double>(10, 1.0)));
  // Five samples meet min_samples = 1 but have no interval at all.
  settings.min_samples = 1;
  EXPECT_FALSE(noise_target_met(settings, std::vector<double>(5, 1.0)));
}

TEST(NoiseTarget, AnOutlierDoesNotSpoilIt) {
  std::vector<double> samples = tight_series();
  samples[7] = 1e6;  // replaces 100.07; x_(20) is now the outlier, x_(6..15) barely move
  EXPECT_TRUE(noise_target_met(SamplingSettings{}, samples));
}

TEST(SamplingVerdict, EveryBranch) {
  const SamplingSettings s;  // min 1 s, capped 4 s, max 8 s
  using V = SamplingVerdict;
  // Below min_time: continue even with the target met.
  EXPECT_EQ(sampling_verdict(s, 0.5, true, false), V::kContinue);
  EXPECT_EQ(sampling_verdict(s, 0.999, true, false), V::kContinue);
  // From min_time on, the target decides.
  EXPECT_EQ(sampling_verdict(s, 1.0, true, false), V::kTargetReached);
  EXPECT_EQ(sampling_verdict(s, 1.0, false, false), V::kContinue);
  EXPECT_EQ(sampling_verdict(s, 7.99, false, false), V::kContinue);
  // Power-capped: min_time_capped instead.
  EXPECT_EQ(sampling_verdict(s, 1.0, true, true), V::kContinue);
  EXPECT_EQ(sampling_verdict(s, 3.99, true, true), V::kContinue);
  EXPECT_EQ(sampling_verdict(s, 4.0, true, true), V::kTargetReached);
  EXPECT_EQ(sampling_verdict(s, 4.0, false, true), V::kContinue);
  // max_time: timed out unless the target is met.
  EXPECT_EQ(sampling_verdict(s, 8.0, false, false), V::kTimedOut);
  EXPECT_EQ(sampling_verdict(s, 8.0, false, true), V::kTimedOut);
  EXPECT_EQ(sampling_verdict(s, 100, false, true), V::kTimedOut);
  EXPECT_EQ(sampling_verdict(s, 8.0, true, false), V::kTargetReached);
  EXPECT_EQ(sampling_verdict(s, 8.0, true, true), V::kTargetReached);
}

TEST(SamplingVerdict, CappedUsesTheLongerOfMinTimeAndMinTimeCapped) {
  SamplingSettings s;
  s.min_time_s = 5;
  s.min_time_capped_s = 4;
  EXPECT_EQ(sampling_verdict(s, 4.5, true, true), SamplingVerdict::kContinue);
  EXPECT_EQ(sampling_verdict(s, 5.0, true, true), SamplingVerdict::kTargetReached);
  EXPECT_EQ(sampling_verdict(s, 4.5, true, false), SamplingVerdict::kContinue);
}

TEST(SamplingVerdict, MaxTimeWinsOverMinTime) {
  SamplingSettings s;
  s.min_time_capped_s = 4;
  s.max_time_s = 2;  // the parser refuses this; the rule still ends at max_time
  EXPECT_EQ(sampling_verdict(s, 2.0, true, true), SamplingVerdict::kTargetReached);
  EXPECT_EQ(sampling_verdict(s, 2.0, false, true), SamplingVerdict::kTimedOut);
  EXPECT_EQ(sampling_verdict(s, 1.99, true, true), SamplingVerdict::kContinue);
}

}  // namespace
}  // namespace gemmscope
