#include "bench/timing/sample_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace gemmscope {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// 16 samples in pairs, so that the 8 batches are the pairs: batch means 100, 101, 99, 100,
// 102, 98, 100, 100; their mean 100, deviations 0, 1, -1, 0, 2, -2, 0, 0 (sum of squares 10).
std::vector<double> paired_series() {
  std::vector<double> samples;
  for (const double batch_mean : {100, 101, 99, 100, 102, 98, 100, 100}) {
    samples.push_back(batch_mean - 0.5);
    samples.push_back(batch_mean + 0.5);
  }
  return samples;
}

TEST(SummarizeSamples, HandComputedMeanAndInterval) {
  const std::vector<double> samples = paired_series();
  const SampleSummary summary = summarize_samples(samples);
  EXPECT_DOUBLE_EQ(summary.mean, 100);
  EXPECT_EQ(samples.size() - summary.outliers, 16u);
  EXPECT_EQ(summary.outliers, 0);
  // t(0.975, 7) * sqrt(10 / 7) / sqrt(8).
  const double expected = 2.364624 * std::sqrt(10.0 / 7) / std::sqrt(8.0);
  EXPECT_NEAR(summary.half_width, expected, 1e-12);
  EXPECT_NEAR(relative_half_width_pct(summary), expected, 1e-12);  // the mean is 100
}

// What the batches are for: the same samples, swinging slowly or quickly. Taken one at a
// time as independent, both would have the same interval.
TEST(SummarizeSamples, ADriftWidensTheIntervalAQuickAlternationDoesNot) {
  std::vector<double> drifting;
  std::vector<double> alternating;
  for (int i = 0; i < 32; ++i) {
    drifting.push_back(i < 16 ? 97 : 103);
    alternating.push_back(i % 2 == 0 ? 97 : 103);
  }
  const SampleSummary slow = summarize_samples(drifting);
  const SampleSummary quick = summarize_samples(alternating);
  EXPECT_DOUBLE_EQ(slow.mean, 100);
  EXPECT_DOUBLE_EQ(quick.mean, 100);
  EXPECT_EQ(quick.half_width, 0);  // every batch of 4 averages 100
  // Batch means 97 x4, 103 x4: deviations of 3, standard deviation sqrt(72 / 7).
  EXPECT_NEAR(slow.half_width, 2.364624 * std::sqrt(72.0 / 7) / std::sqrt(8.0), 1e-12);
}

// Why the mean: 60% of the samples at one operating point, 40% 3% slower. The median says the
// faster one; the time spent is their weighted mean.
TEST(SummarizeSamples, TwoModesGiveTheTimeWeightedMean) {
  std::vector<double> samples;
  for (int i = 0; i < 100; ++i)
    samples.push_back(i % 5 < 3 ? 1.00 : 1.03);
  EXPECT_DOUBLE_EQ(median_of(samples), 1.00);
  EXPECT_NEAR(summarize_samples(samples).mean, 1.012, 1e-12);
}

TEST(SummarizeSamples, OutliersAreLeftOutAndCounted) {
  std::vector<double> samples = paired_series();
  samples.push_back(100 * 1.6);  // more than 1.5 times the median: out
  samples.push_back(100 / 1.6);  // less than the median over 1.5: out
  samples.push_back(100 * 1.4);  // within: kept
  const SampleSummary summary = summarize_samples(samples);
  EXPECT_EQ(summary.outliers, 2);
  EXPECT_EQ(samples.size() - summary.outliers, 17u);
  EXPECT_DOUBLE_EQ(summary.mean, (100 * 16 + 140) / 17.0);
}

TEST(SummarizeSamples, AHugeOutlierMovesNothing) {
  std::vector<double> samples = paired_series();
  samples.insert(samples.begin() + 5, 1e9);
  const SampleSummary summary = summarize_samples(samples);
  EXPECT_EQ(summary.outliers, 1);
  EXPECT_DOUBLE_EQ(summary.mean, 100);
  EXPECT_NEAR(summary.half_width, summarize_samples(paired_series()).half_width, 1e-12);
}

TEST(SummarizeSamples, FewerThanEightSamplesHaveAMeanButNoInterval) {
  const SampleSummary seven = summarize_samples({10, 11, 12, 13, 14, 15, 16});
  EXPECT_DOUBLE_EQ(seven.mean, 13);
  EXPECT_EQ(seven.half_width, kInfinity);
  EXPECT_EQ(relative_half_width_pct(seven), kInfinity);
  const SampleSummary eight = summarize_samples(std::vector<double>(8, 2.0));
  EXPECT_DOUBLE_EQ(eight.mean, 2);
  EXPECT_EQ(eight.half_width, 0);
  EXPECT_EQ(relative_half_width_pct(eight), 0);
  const SampleSummary none = summarize_samples({});
  EXPECT_EQ(none.mean, 0);
  EXPECT_EQ(none.outliers, 0);
  EXPECT_EQ(relative_half_width_pct(none), kInfinity);
}

TEST(SummarizeSamples, UnevenBatchesWeighTheSame) {
  // 9 samples: batches of 1 except the last, of 2 (9 * b / 8 for b = 0..8: 0, 1, 2, ..., 7, 9).
  const SampleSummary summary = summarize_samples({10, 10, 10, 10, 10, 10, 10, 10, 12});
  EXPECT_DOUBLE_EQ(summary.mean, 92.0 / 9);
  // Batch means 10 x7 and 11: their mean 10.125, squares 7 * 0.125^2 + 0.875^2 = 0.875.
  EXPECT_NEAR(summary.half_width, 2.364624 * std::sqrt(0.875 / 7) / std::sqrt(8.0), 1e-12);
}

TEST(RelativeHalfWidth, FiniteAndInfinite) {
  EXPECT_DOUBLE_EQ(relative_half_width_pct(SampleSummary{200, 1, 0}), 0.5);
  EXPECT_EQ(relative_half_width_pct(SampleSummary{5, 0, 0}), 0);
  EXPECT_EQ(relative_half_width_pct(SampleSummary{0, 1, 0}), kInfinity);
  EXPECT_EQ(relative_half_width_pct(SampleSummary{-1, 1, 0}), kInfinity);
  EXPECT_EQ(relative_half_width_pct(SampleSummary{5, kInfinity, 0}), kInfinity);
}

TEST(MedianOf, OddEvenAndEmpty) {
  EXPECT_EQ(median_of({3, 1, 2}), 2);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({7}), 7);
  EXPECT_EQ(median_of({}), 0);
  EXPECT_EQ(median_of({5, 5, 1, 100, 5}), 5);
}

}  // namespace
}  // namespace gemmscope
