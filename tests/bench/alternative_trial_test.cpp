// The choice between a case's alternatives (bench/timing/alternative_trial.h): each member's
// samples cycle through its alternatives, the trial is complete once each has kMinSamples, and
// the fastest by the median of its latest samples is kept, so that early samples, taken before
// the group reached its steady clock, do not decide.

#include "bench/timing/alternative_trial.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace gemmscope {
namespace {

TEST(AlternativeTrial, CyclesThroughEachMembersAlternatives) {
  AlternativeTrial trial({3, 1, 2});
  EXPECT_TRUE(trial.needed());
  std::vector<size_t> first, third;
  for (int i = 0; i < 6; ++i) {
    first.push_back(trial.next(0));
    EXPECT_EQ(trial.next(1), 0u);
    third.push_back(trial.next(2));
  }
  EXPECT_EQ(first, (std::vector<size_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(third, (std::vector<size_t>{0, 1, 0, 1, 0, 1}));
}

TEST(AlternativeTrial, NothingToChooseIsCompleteAtOnce) {
  AlternativeTrial trial({1, 1});
  EXPECT_FALSE(trial.needed());
  EXPECT_TRUE(trial.complete());
  EXPECT_THROW(AlternativeTrial({2, 0}), std::invalid_argument);
}

TEST(AlternativeTrial, CompleteOnceEveryAlternativeHasEnoughSamples) {
  AlternativeTrial trial({2, 1});
  for (size_t k = 0; k < AlternativeTrial::kMinSamples; ++k) {
    EXPECT_FALSE(trial.complete());
    trial.record(0, 0, 1e-3);
  }
  EXPECT_FALSE(trial.complete());  // alternative 1 has none yet
  for (size_t k = 0; k < AlternativeTrial::kMinSamples; ++k)
    trial.record(0, 1, 2e-3);
  EXPECT_TRUE(trial.complete());  // member 1 has nothing to choose: its samples do not matter
}

TEST(AlternativeTrial, KeepsTheFastestByTheMedianOfTheLatestSamples) {
  AlternativeTrial trial({3});
  // Alternative 0 was fast while the GPU was still cool (its first samples), slower since;
  // alternative 2 is steady in between; alternative 1 is slowest, with one outlier low.
  for (int k = 0; k < 20; ++k)
    trial.record(0, 0, k < 10 ? 0.8e-3 : 1.10e-3);
  for (int k = 0; k < 20; ++k)
    trial.record(0, 1, k == 19 ? 0.5e-3 : 1.30e-3);
  for (int k = 0; k < 20; ++k)
    trial.record(0, 2, 1.05e-3);
  const std::vector<double> typical = trial.typical_seconds(0);
  ASSERT_EQ(typical.size(), 3u);
  // The last 15 samples of alternative 0: five at 0.8, ten at 1.1; median 1.1.
  EXPECT_DOUBLE_EQ(typical[0], 1.10e-3);
  EXPECT_DOUBLE_EQ(typical[1], 1.30e-3);
  EXPECT_DOUBLE_EQ(typical[2], 1.05e-3);
  EXPECT_EQ(trial.fastest(0), 2u);
}

TEST(AlternativeTrial, MedianOfAnEvenCountAndUnsampledAlternatives) {
  AlternativeTrial trial({3});
  for (const double s : {4.0, 1.0, 3.0, 2.0})
    trial.record(0, 1, s);
  const std::vector<double> typical = trial.typical_seconds(0);
  EXPECT_DOUBLE_EQ(typical[0], 0.0);  // never sampled: never chosen
  EXPECT_DOUBLE_EQ(typical[1], 2.5);
  EXPECT_EQ(trial.fastest(0), 1u);
}

TEST(AlternativeTrial, ReadingsThatAreNoTimeAreNotSamples) {
  AlternativeTrial trial({2});
  for (const double s : {std::nan(""), 0.0, -1.0, std::numeric_limits<double>::infinity()})
    trial.record(0, 0, s);
  for (int i = 0; i < 5; ++i)
    trial.record(0, 1, 2e-3);
  EXPECT_FALSE(trial.complete()) << "alternative 0 has no sample yet";
  EXPECT_DOUBLE_EQ(trial.typical_seconds(0)[0], 0.0);
  EXPECT_EQ(trial.fastest(0), 1u);
  for (int i = 0; i < 5; ++i)
    trial.record(0, 0, 1e-3);
  EXPECT_TRUE(trial.complete());
  EXPECT_EQ(trial.fastest(0), 0u);
}

}  // namespace
}  // namespace gemmscope
