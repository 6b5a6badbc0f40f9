#include "bench/timing/stopping_rule.h"

#include <algorithm>

#include "bench/timing/sample_statistics.h"

namespace gemmscope {

bool noise_target_met(const SamplingSettings& settings, const std::vector<double>& samples) {
  if (static_cast<int>(samples.size()) < settings.min_samples)
    return false;
  return relative_half_width_pct(summarize_samples(samples)) <= settings.max_noise_pct;
}

SamplingVerdict sampling_verdict(const SamplingSettings& settings, double elapsed_s,
                                 bool targets_met, bool clock_limited) {
  if (elapsed_s >= settings.max_time_s)
    return targets_met ? SamplingVerdict::kTargetReached : SamplingVerdict::kTimedOut;
  const double min_time = clock_limited ? std::max(settings.min_time_s, settings.min_time_capped_s)
                                        : settings.min_time_s;
  if (targets_met && elapsed_s >= min_time)
    return SamplingVerdict::kTargetReached;
  return SamplingVerdict::kContinue;
}

}  // namespace gemmscope
