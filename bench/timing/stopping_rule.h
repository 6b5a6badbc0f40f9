#pragma once
// When to stop sampling a case: once the 95% confidence interval of its mean (from batch
// means, see sample_statistics.h) is narrower than --max_noise, with at least --min_samples
// samples and --min_time of sampling (--min_time_capped while a limiter, of power or of
// temperature, holds the GPU's clock down); and in any case after --max_time. nvbench stops on
// the relative standard deviation of its samples, which measures the spread of one sample and
// so never shrinks with more of them; gemmscope reports a mean, and stops when that mean is
// known to the precision asked for.

#include <vector>

namespace gemmscope {

struct SamplingSettings {
  double max_noise_pct = 0.5;  // target half-width of the mean's 95% interval, % of it
  int min_samples = 10;
  double min_time_s = 1.0;
  // While the power limiter holds the GPU at its cap (or the thermal one holds its clock down:
  // seen on an H100 at 82 C, below its power cap), the clock swings by about 3% either way
  // with a period of about a second (settle_detector.h), and samples a few milliseconds apart
  // are not independent: with few swings in the sampling even batch means are not, and their
  // interval can be narrow while the samples cover one swing only. Sampling then lasts at
  // least this long, so that every case sees several swings (four: a part swing then weighs
  // at most about 1/8).
  double min_time_capped_s = 4.0;
  double max_time_s = 8.0;  // stop here even if the target is not reached
};

// Whether `samples` (one case's) meet the noise and sample-count targets.
bool noise_target_met(const SamplingSettings& settings, const std::vector<double>& samples);

enum class SamplingVerdict { kContinue, kTargetReached, kTimedOut };

// After `elapsed_s` of sampling, with the noise target met by every case being sampled
// (`targets_met`) or not, and with the GPU's clock held down by a limiter (`clock_limited`).
SamplingVerdict sampling_verdict(const SamplingSettings& settings, double elapsed_s,
                                 bool targets_met, bool clock_limited);

}  // namespace gemmscope
