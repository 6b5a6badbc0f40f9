#pragma once
// What the session times for one case, once it is prepared (buffers allocated and filled,
// plans made, all outside timing): the work one iteration enqueues, an optional check before
// timing, and the counters its GPU time turns into. GEMM cases (bench/recipes/recipe.h) and
// quantization cases (bench/quantize_case.h) are the two kinds.

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace gemmscope {

// Run-level measurements a case's counters may be relative to.
struct RunMeasurements {
  double copy_gbps = 0;  // device-to-device copy bandwidth, bytes read + written per second / 1e9
};

class TimedWork {
 public:
  virtual ~TimedWork() = default;
  // Enqueues exactly what one timed iteration holds.
  virtual void enqueue(cudaStream_t stream) = 0;
  // --verify: checks the work once, before timing. Returns an error message, or "" when it
  // passed; counters it measured go into report().
  virtual std::string verify(cudaStream_t stream) = 0;
  // Sets the case's counters from its GPU time per iteration. They go into a counter map
  // rather than a benchmark::State so that a case can be reported after it was measured.
  virtual void report(benchmark::UserCounters& counters, double seconds_per_iteration,
                      const RunMeasurements& run) const = 0;
  // Bytes one enqueue() reads plus writes, for work measured by them (quantization: GB/s, and
  // the session's same-bytes copy, copy_yardstick.h); 0 for work that is not.
  virtual double bytes_moved() const { return 0; }
  // The case's label in the report (the session may append notes to it, e.g. on clocks).
  virtual std::string label() const { return ""; }
  // After a trial among alternatives: each one's name and time, for --list_kernels.
  virtual std::string trial_times() const { return ""; }
  // About how many kernels, memsets and copies one enqueue() launches, rounded up (the most of
  // any alternative): samples are enqueued behind a held stream, which takes only so many
  // launches (steady_state_run.h).
  virtual size_t launches() const { return 1; }
  // How many consecutive enqueue() calls make one sample. Work that does something once every
  // N calls (a step case with --microbatches=N quantizes its weight on every N-th) is timed in
  // runs of N calls, each run's mean one sample, so that every sample holds that work's share.
  virtual size_t period() const { return 1; }

  // Work that can run one of several alternatives (the implementations and configurations of
  // --grouped=auto and --provider=auto) has timing try each while its group settles and keep
  // the fastest (alternative_trial.h).
  virtual size_t alternatives() const { return 1; }
  // Makes enqueue() run alternative `index` (< alternatives()) until told otherwise.
  virtual void use_alternative(size_t /*index*/) {}
  // The trial's verdict: each alternative's typical time in seconds, and the one kept, which
  // enqueue() runs from now on.
  virtual void keep_alternative(size_t index, const std::vector<double>& /*seconds*/) {
    use_alternative(index);
  }
};

}  // namespace gemmscope
