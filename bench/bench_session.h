#pragma once
// What every case of one gemm_bench run shares: the options, the GPU's resources (stream,
// cuBLASLt, timer), run-level measurements, and the one case currently prepared. Cases run one
// after another, and Google Benchmark calls a case's function several times (to size the
// iteration count, once per repetition); the prepared case is kept between those calls and
// freed when the next case starts, so only one case's buffers are ever allocated.

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>

#include "bench/clock_monitor.h"
#include "bench/device_info.h"
#include "bench/iteration_timer.h"
#include "bench/options.h"
#include "bench/recipe.h"
#include "bench/timed_work.h"
#include "kernels/cublaslt_context.h"

namespace gemmscope {

// One registered case: its name and how to make its work on this GPU.
struct CaseDefinition {
  std::string name;
  // Empty when this GPU can run the case, otherwise why not (the case is then skipped).
  std::function<std::string(const DeviceInfo&)> unsupported_reason;
  // Allocates, fills, quantizes (prequant) and plans; may throw Unsupported.
  std::function<std::unique_ptr<TimedWork>(const RecipeContext&)> prepare;
};

class BenchSession {
 public:
  explicit BenchSession(const BenchOptions& options) : options_(options) {}
  ~BenchSession();

  // Creates the GPU resources and takes the run-level measurements. Not called when only
  // listing cases (no GPU needed then).
  void start_gpu();
  const DeviceInfo& device() const { return device_; }
  const RunMeasurements& measurements() const { return measurements_; }
  const CublasLtContext& cublas() const { return *cublas_; }
  cudaStream_t stream() const { return stream_; }
  const ClockMonitor& clock_monitor() const { return *clock_monitor_; }

  // The body of every registered benchmark.
  void run_case(benchmark::State& state, const CaseDefinition& definition);

 private:
  struct PreparedCase {
    std::string name;
    std::unique_ptr<TimedWork> work;
    std::string verification_failure;  // empty: passed, or not verified
  };
  // Returns the prepared case for `definition`, preparing (and verifying) it if it is new.
  PreparedCase& prepare(const CaseDefinition& definition);
  void time_case(benchmark::State& state, PreparedCase& prepared);

  BenchOptions options_;
  DeviceInfo device_;
  RunMeasurements measurements_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<CublasLtContext> cublas_;
  std::unique_ptr<IterationTimer> timer_;
  std::unique_ptr<ClockMonitor> clock_monitor_;
  std::unique_ptr<PreparedCase> prepared_;
};

// Google Benchmark 1.8 can mark a case skipped; 1.7 only errored. Either way the reason shows.
void skip_case(benchmark::State& state, const std::string& reason);

}  // namespace gemmscope
