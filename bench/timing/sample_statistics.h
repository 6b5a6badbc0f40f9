#pragma once
// What a case's samples (GPU times of its iterations, in the order they ran) say: their mean,
// and how precisely that mean is known.
//
// The mean, not the median. At its power cap a GPU's limiter holds it at one operating point
// or another for seconds at a time: on an H100 at 70-72 C and 695-700 W, FP8 GEMM groups ran
// 3% faster or slower for seconds on end. A case's samples then have two modes, and their
// median jumps from one to the other between runs as the share of each crosses a half. The
// mean weighs each mode by the time spent in it, as a training step's total does. Replayed on
// the samples of four pairs of whole sweeps on H100s, the mean cut the run-to-run difference
// per GEMM case from p90 0.64-2.62% to 0.44-2.13%, max 1.03-3.50% to 0.59-2.67% (and where a
// GPU heated into its thermal limit between the two sweeps, p90 5.82% to 5.19%).
//
// Its precision: samples milliseconds apart are not independent (the limiter's clock swings
// last about a second), so the mean's standard error comes from batch means: the samples, in
// time order, are cut into kBatches consecutive batches, and the 95% interval is Student's t
// over the batch means. A case whose time drifts or swings while it is sampled gets a wide
// interval, which is what a rerun would see.
//
// Outliers: a sample more than kOutlierFactor times off the median (a GPU-side interruption) is
// left out and counted. With the stream held they are rare: of 268,758 samples in six whole
// sweeps on two H100s one was (1.75 times its case's median), the rest within 1.2 times.

#include <vector>

namespace gemmscope {

inline constexpr int kBatches = 8;
inline constexpr double kOutlierFactor = 1.5;

struct SampleSummary {
  double mean = 0;        // of the samples kept; 0 for none
  double half_width = 0;  // of the mean's 95% interval; infinite below kBatches samples kept
  int outliers = 0;       // samples more than kOutlierFactor times off the median, left out
};

// `samples` in the order they were taken (the batches are consecutive runs of them).
SampleSummary summarize_samples(const std::vector<double>& samples);

// The interval's half-width relative to the mean, in percent: the noise a stopping rule
// compares with its target. Infinite when the interval is undefined or the mean is not positive.
double relative_half_width_pct(const SampleSummary& summary);

// The median of `samples` (any order); 0 for none.
double median_of(std::vector<double> samples);

}  // namespace gemmscope
