#include "bench/sample_statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace gemmscope {
namespace {

// The exact rank, independently of the code under test: sum the binomial coefficients one by
// one in long double (C(n, k) for n <= 1000 fits in a long double, whose range reaches
// 10^4932) and divide by 2^n at the end.
int exact_rank(int n) {
  const long double total = std::ldexp(1.0L, n);
  long double coefficient = 1;  // C(n, 0)
  long double cumulative = 0;
  int rank = 0;
  for (int k = 0; k < n; ++k) {
    cumulative += coefficient;
    if (cumulative / total > 0.025L)
      break;
    rank = k + 1;
    coefficient = coefficient * (n - k) / (k + 1);
  }
  return rank;
}

TEST(MedianIntervalRank, KnownValues) {
  // P(Bin(n, 1/2) <= l - 1) <= 2.5%, worked out with exact fractions:
  // n=6: P(X<=0) = 1/64; P(X<=1) = 7/64 > 2.5%  -> 1.
  // n=10: P(X<=1) = 11/1024 = 1.07%; P(X<=2) = 56/1024 = 5.5% -> 2.
  // n=20: P(X<=5) = 21700/2^20 = 2.07%; P(X<=6) = 5.77% -> 6.
  EXPECT_EQ(median_interval_rank(6), 1);
  EXPECT_EQ(median_interval_rank(7), 1);
  EXPECT_EQ(median_interval_rank(8), 1);
  EXPECT_EQ(median_interval_rank(9), 2);
  EXPECT_EQ(median_interval_rank(10), 2);
  EXPECT_EQ(median_interval_rank(11), 2);
  EXPECT_EQ(median_interval_rank(12), 3);
  EXPECT_EQ(median_interval_rank(20), 6);
  EXPECT_EQ(median_interval_rank(30), 10);
  EXPECT_EQ(median_interval_rank(50), 18);
  EXPECT_EQ(median_interval_rank(100), 40);
  EXPECT_EQ(median_interval_rank(200), 86);
  EXPECT_EQ(median_interval_rank(999), 469);
  EXPECT_EQ(median_interval_rank(1000), 469);
}

TEST(MedianIntervalRank, MatchesBruteForceBinomialUpTo1000) {
  for (int n = 6; n <= 1000; ++n) {
    const std::optional<int> rank = median_interval_rank(n);
    ASSERT_TRUE(rank.has_value()) << n;
    EXPECT_EQ(*rank, exact_rank(n)) << n;
  }
}

TEST(MedianIntervalRank, EmptyBelowSixSamples) {
  // n=5: even P(X<=0) = 1/32 = 3.1% > 2.5%.
  for (int n : {-1, 0, 1, 2, 3, 4, 5})
    EXPECT_FALSE(median_interval_rank(n).has_value()) << n;
  EXPECT_EQ(exact_rank(5), 0);
}

TEST(MedianIntervalRank, NormalApproximationIsContinuousWithTheExactValues) {
  // floor((n - 1.96 sqrt(n)) / 2): n=1001 -> 469, 2000 -> 956, 10000 -> 4902.
  EXPECT_EQ(median_interval_rank(1001), 469);
  EXPECT_EQ(median_interval_rank(2000), 956);
  EXPECT_EQ(median_interval_rank(10000), 4902);
  EXPECT_LE(std::abs(*median_interval_rank(1001) - *median_interval_rank(1000)), 1);
  // Around the switch the rank never falls and grows by at most 1 a sample.
  for (int n = 950; n <= 1050; ++n) {
    const int step = *median_interval_rank(n + 1) - *median_interval_rank(n);
    EXPECT_GE(step, 0) << n;
    EXPECT_LE(step, 1) << n;
  }
}

// Ten samples: rank 2, so the interval is [x_(2), x_(9)] whatever x_(10) is.
std::vector<double> ten_with_outlier(double outlier) {
  return {14, 11, outlier, 17, 10, 13, 16, 12, 18, 15};
}

TEST(MedianInterval, OrderStatisticsOfAHandMadeSeries) {
  const std::optional<MedianInterval> interval = median_interval(ten_with_outlier(1000));
  ASSERT_TRUE(interval.has_value());
  EXPECT_EQ(interval->median, 14.5);  // (14 + 15) / 2
  EXPECT_EQ(interval->lower, 11);     // x_(2)
  EXPECT_EQ(interval->upper, 18);     // x_(9)
  EXPECT_DOUBLE_EQ(relative_half_width_pct(interval), 100.0 * 7 / (2 * 14.5));
}

TEST(MedianInterval, DoesNotMoveWithTheOutliersSize) {
  for (double outlier : {19.0, 1e3, 1e9}) {
    const std::optional<MedianInterval> interval = median_interval(ten_with_outlier(outlier));
    ASSERT_TRUE(interval.has_value());
    EXPECT_EQ(interval->median, 14.5) << outlier;
    EXPECT_EQ(interval->lower, 11) << outlier;
    EXPECT_EQ(interval->upper, 18) << outlier;
  }
}

TEST(MedianInterval, IndependentOfOrder) {
  std::vector<double> samples = ten_with_outlier(1000);
  std::mt19937 random(7);
  for (int i = 0; i < 20; ++i) {
    std::shuffle(samples.begin(), samples.end(), random);
    const std::optional<MedianInterval> interval = median_interval(samples);
    ASSERT_TRUE(interval.has_value());
    EXPECT_EQ(interval->median, 14.5);
    EXPECT_EQ(interval->lower, 11);
    EXPECT_EQ(interval->upper, 18);
  }
}

TEST(MedianInterval, SixSamplesSpanTheExtremesAndFiveAreTooFew) {
  const std::optional<MedianInterval> six = median_interval({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(six.has_value());
  EXPECT_EQ(six->median, 3.5);
  EXPECT_EQ(six->lower, 1);  // rank 1: [x_(1), x_(6)]
  EXPECT_EQ(six->upper, 6);
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5}).has_value());
  EXPECT_FALSE(median_interval({}).has_value());
}

TEST(MedianOf, OddEvenAndEmpty) {
  EXPECT_EQ(median_of({3, 1, 2}), 2);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({7}), 7);
  EXPECT_EQ(median_of({}), 0);
  EXPECT_EQ(median_of({5, 5, 1, 100, 5}), 5);
}

TEST(RelativeHalfWidth, FiniteAndInfinite) {
  EXPECT_DOUBLE_EQ(relative_half_width_pct(MedianInterval{100, 99, 101}), 1.0);
  EXPECT_DOUBLE_EQ(relative_half_width_pct(MedianInterval{200, 199, 200}), 0.25);
  EXPECT_EQ(relative_half_width_pct(MedianInterval{5, 5, 5}), 0);
  const double infinity = std::numeric_limits<double>::infinity();
  EXPECT_EQ(relative_half_width_pct(std::nullopt), infinity);
  EXPECT_EQ(relative_half_width_pct(MedianInterval{0, 0, 1}), infinity);
  EXPECT_EQ(relative_half_width_pct(MedianInterval{-1, -2, 0}), infinity);
}

}  // namespace
}  // namespace gemmscope
