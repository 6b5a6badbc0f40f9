#include "bench/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gemmscope {
namespace {

constexpr double kTailProbability = 0.025;  // each side of a 95% interval
constexpr int kExactLimit = 1000;

double median_of_sorted(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

}  // namespace

std::optional<int> median_interval_rank(int n) {
  if (n < 1)
    return std::nullopt;
  int rank = 0;
  if (n <= kExactLimit) {
    // Cumulative Binomial(n, 1/2) probabilities in log space: 2^-n underflows nothing here,
    // but the binomial coefficients would overflow a double well before n = 1000.
    double cumulative = 0;
    double log_pmf = -n * std::log(2.0);  // P(X = 0)
    for (int k = 0; k < n; ++k) {
      cumulative += std::exp(log_pmf);
      if (cumulative > kTailProbability)
        break;
      rank = k + 1;  // P(X <= k) <= 2.5%: x_(k+1) may be the lower end
      log_pmf += std::log(static_cast<double>(n - k)) - std::log(static_cast<double>(k + 1));
    }
  } else {
    rank = static_cast<int>(std::floor((n - 1.959964 * std::sqrt(static_cast<double>(n))) / 2));
  }
  if (rank < 1)
    return std::nullopt;
  return rank;
}

std::optional<MedianInterval> median_interval(std::vector<double> samples) {
  const int n = static_cast<int>(samples.size());
  const std::optional<int> rank = median_interval_rank(n);
  if (!rank)
    return std::nullopt;
  std::sort(samples.begin(), samples.end());
  MedianInterval interval;
  interval.median = median_of_sorted(samples);
  interval.lower = samples[*rank - 1];
  interval.upper = samples[n - *rank];
  return interval;
}

double median_of(std::vector<double> samples) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  return median_of_sorted(samples);
}

double relative_half_width_pct(const std::optional<MedianInterval>& interval) {
  if (!interval || interval->median <= 0)
    return std::numeric_limits<double>::infinity();
  return 100 * (interval->upper - interval->lower) / (2 * interval->median);
}

}  // namespace gemmscope
