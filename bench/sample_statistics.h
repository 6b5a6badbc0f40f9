#pragma once
// What a case's samples (GPU times of its iterations) say: their median, and how precisely
// that median is known. The precision is the 95% confidence interval of the median from order
// statistics, which assumes nothing about the distribution: GPU sample times are skewed
// (a clock dip or an interrupt only ever makes a sample slower) and a single outlier must not
// move the answer or the stopping decision, which a mean and its standard error would let it.

#include <optional>
#include <vector>

namespace gemmscope {

struct MedianInterval {
  double median = 0;
  double lower = 0;  // the 95% confidence interval of the median
  double upper = 0;
};

// The 1-based rank l of the interval's lower end for n samples: the largest l with
// P(Binomial(n, 1/2) <= l - 1) <= 2.5%, so that [x_(l), x_(n+1-l)] covers the median with
// at least 95% probability. Exact up to 1000 samples, the normal approximation beyond.
// Empty below 6 samples, where even [x_(1), x_(n)] covers it with less than 95%.
std::optional<int> median_interval_rank(int n);

// Median and its 95% interval of `samples` (any order); empty below 6 samples.
std::optional<MedianInterval> median_interval(std::vector<double> samples);

// The median of `samples` (any order); 0 for none.
double median_of(std::vector<double> samples);

// The interval's half-width relative to the median, in percent: the noise a stopping rule
// compares with its target. Infinite when the interval is undefined or the median is 0.
double relative_half_width_pct(const std::optional<MedianInterval>& interval);

}  // namespace gemmscope
