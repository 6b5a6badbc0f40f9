#include "bench/timing/stopping_rule.h"

#include <gtest/gtest.h>

#include <vector>

#include "bench/timing/sample_statistics.h"

namespace gemmscope {
namespace {

// 16 samples alternating 99.9 and 100.1: every batch of two averages 100, noise 0.
std::vector<double> tight_series() {
  std::vector<double> samples;
  for (int k = 0; k < 16; ++k)
    samples.push_back(k % 2 == 0 ? 99.9 : 100.1);
  return samples;
}

// 16 samples whose batches (pairs) average 100, 101, 99, 100, 102, 98, 100, 100: half-width
// t(0.975, 7) * sqrt(10 / 7) / sqrt(8) = 0.999236% of the mean, 100.
std::vector<double> swinging_series() {
  std::vector<double> samples;
  for (const double batch_mean : {100, 101, 99, 100, 102, 98, 100, 100}) {
    samples.push_back(batch_mean);
    samples.push_back(batch_mean);
  }
  return samples;
}

TEST(NoiseTarget, HandComputedIntervals) {
  EXPECT_NEAR(relative_half_width_pct(summarize_samples(tight_series())), 0, 1e-9);
  EXPECT_NEAR(relative_half_width_pct(summarize_samples(swinging_series())), 0.999236, 1e-6);
}

TEST(NoiseTarget, TightSeriesMeetsAnyTarget) {
  SamplingSettings settings;  // 0.5%, at least 10 samples
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
  settings.max_noise_pct = 0.01;
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
}

TEST(NoiseTarget, ASwingOfTwoPercentDoesNotMeetHalfAPercent) {
  SamplingSettings settings;
  EXPECT_FALSE(noise_target_met(settings, swinging_series()));
  settings.max_noise_pct = 0.999;  // 0.999236% is just above
  EXPECT_FALSE(noise_target_met(settings, swinging_series()));
  settings.max_noise_pct = 1.0;
  EXPECT_TRUE(noise_target_met(settings, swinging_series()));
}

TEST(NoiseTarget, NeedsMinSamples) {
  SamplingSettings settings;
  settings.min_samples = 17;
  EXPECT_FALSE(noise_target_met(settings, tight_series()));
  settings.min_samples = 16;
  EXPECT_TRUE(noise_target_met(settings, tight_series()));
  // Nine identical samples: an interval of width 0 exists, but 9 < 10 samples.
  EXPECT_FALSE(noise_target_met(SamplingSettings{}, std::vector<double>(9, 1.0)));
  EXPECT_TRUE(noise_target_met(SamplingSettings{}, std::vector<double>(10, 1.0)));
  // Seven samples meet min_samples = 1 but have no interval at all (fewer than 8 batches).
  settings.min_samples = 1;
  EXPECT_FALSE(noise_target_met(settings, std::vector<double>(7, 1.0)));
}

TEST(NoiseTarget, AnOutlierDoesNotSpoilIt) {
  std::vector<double> samples = tight_series();
  samples[7] = 1e6;  // more than 1.5 times the median: left out
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
