// Samples of work with a period (a step case with --microbatches=N): runs of N iterations, each
// run's mean one sample (bench/timing/period_mean.h).

#include "bench/timing/period_mean.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace gemmscope {
namespace {

std::vector<double> samples_of(size_t period, const std::vector<double>& iterations) {
  PeriodMean runs(period);
  std::vector<double> samples;
  for (const double seconds : iterations) {
    if (const std::optional<double> sample = runs.add(seconds))
      samples.push_back(*sample);
  }
  return samples;
}

TEST(PeriodMean, PeriodOneIsEveryIteration) {
  EXPECT_EQ(samples_of(1, {3, 1, 2}), (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(samples_of(0, {3, 1}), (std::vector<double>{3, 1}));  // treated as 1
}

TEST(PeriodMean, EachWholeRunIsOneSampleItsMean) {
  // A weight cast (10) every 4th microbatch of 2: every sample holds it once, wherever the runs
  // start, and the unfinished run at the end is no sample.
  EXPECT_EQ(samples_of(4, {12, 2, 2, 2, 12, 2, 2, 2, 12}), (std::vector<double>{4.5, 4.5}));
  EXPECT_EQ(samples_of(4, {2, 2, 12, 2, 2, 2, 12, 2, 2}), (std::vector<double>{4.5, 4.5}));
  EXPECT_TRUE(samples_of(8, {1, 1, 1}).empty());
}

}  // namespace
}  // namespace gemmscope
