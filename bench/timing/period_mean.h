#pragma once
// A member's timed iterations in runs of its period (TimedWork::period): each whole run's mean
// is one sample. Work that does something once every N iterations (a step case's weight
// quantization with --microbatches=N) then has every sample hold that work's share; any N
// consecutive iterations hold it exactly once, wherever the runs start.

#include <algorithm>
#include <cstddef>
#include <optional>

namespace gemmscope {

class PeriodMean {
 public:
  explicit PeriodMean(size_t period) : period_(std::max<size_t>(1, period)) {}

  // Adds one iteration's time; returns the run's mean when this iteration completes a run.
  std::optional<double> add(double seconds) {
    sum_ += seconds;
    if (++count_ < period_)
      return std::nullopt;
    const double mean = sum_ / static_cast<double>(period_);
    sum_ = 0;
    count_ = 0;
    return mean;
  }

 private:
  size_t period_;
  size_t count_ = 0;
  double sum_ = 0;
};

}  // namespace gemmscope
