#include "bench/timing/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gemmscope {
namespace {

// Student's t, two-sided 95%, for kBatches - 1 = 7 degrees of freedom.
constexpr double kStudentT95 = 2.364624;
static_assert(kBatches == 8, "kStudentT95 is for 7 degrees of freedom");

double mean_of(const std::vector<double>& values, size_t begin, size_t end) {
  double sum = 0;
  for (size_t i = begin; i < end; ++i)
    sum += values[i];
  return sum / static_cast<double>(end - begin);
}

}  // namespace

SampleSummary summarize_samples(const std::vector<double>& samples) {
  SampleSummary summary;
  summary.half_width = std::numeric_limits<double>::infinity();
  const double median = median_of(samples);
  std::vector<double> kept;
  for (const double sample : samples) {
    if (sample > median * kOutlierFactor || sample * kOutlierFactor < median)
      ++summary.outliers;
    else
      kept.push_back(sample);
  }
  if (kept.empty())
    return summary;
  summary.mean = mean_of(kept, 0, kept.size());
  if (kept.size() < kBatches)
    return summary;
  // Batches of unequal size (kept.size() not a multiple of kBatches) differ by one sample;
  // their means weigh the same.
  double batch_means[kBatches];
  double mean_of_batches = 0;
  for (int b = 0; b < kBatches; ++b) {
    batch_means[b] = mean_of(kept, kept.size() * b / kBatches, kept.size() * (b + 1) / kBatches);
    mean_of_batches += batch_means[b] / kBatches;
  }
  double sum_of_squares = 0;
  for (const double batch_mean : batch_means)
    sum_of_squares += (batch_mean - mean_of_batches) * (batch_mean - mean_of_batches);
  const double batch_stddev = std::sqrt(sum_of_squares / (kBatches - 1));
  summary.half_width = kStudentT95 * batch_stddev / std::sqrt(static_cast<double>(kBatches));
  return summary;
}

double relative_half_width_pct(const SampleSummary& summary) {
  if (!(summary.mean > 0) || !std::isfinite(summary.half_width))
    return std::numeric_limits<double>::infinity();
  return 100 * summary.half_width / summary.mean;
}

double median_of(std::vector<double> samples) {
  if (samples.empty())
    return 0;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

}  // namespace gemmscope
