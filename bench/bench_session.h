#pragma once
// What every case of one gemm_bench run shares: the options, the GPU's resources (stream,
// cuBLASLt, timers, NVML, CUPTI), run-level measurements, and the registered cases.
//
// Google Benchmark calls a case's function once per repetition (and, with an explicit
// --benchmark_min_time, several times with growing iteration counts). By default the first
// call of a case prepares its whole group (timing/steady_state_run.h: the other cases of its
// precision, or of its precision's quantization, that the filter selects; with the case
// first), times the group at steady state, and queues
// one result per member; the members' own calls then report their queued results. The
// group's buffers are freed once it is timed, so only one group is ever allocated.

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/device_info.h"
#include "bench/options.h"
#include "bench/recipes/recipe.h"
#include "bench/timing/clock_monitor.h"
#include "bench/timing/copy_yardstick.h"
#include "bench/timing/gpc_clock_sampler.h"
#include "bench/timing/gpu_warmup.h"
#include "bench/timing/iteration_timer.h"
#include "bench/timing/kernel_timer.h"
#include "bench/timing/steady_state_run.h"
#include "bench/timing/timed_work.h"
#include "bench/timing/timeline.h"
#include "kernels/cublaslt/context.h"

namespace gemmscope {

// One registered case: its name, its group and how to make its work on this GPU.
struct CaseDefinition {
  std::string name;
  // Cases of one group are timed together (timing/steady_state_run.h): "{Precision}" for GEMM cases
  // (both modes: one recipe's training step), "{Precision}/Experts" for its grouped (expert)
  // GEMM cases, "{Precision}/Quantize" and "{Precision}/Quantize/Experts" for quantization
  // cases.
  std::string group;
  // Empty when this GPU can run the case, otherwise why not (the case is then skipped).
  std::function<std::string(const DeviceInfo&)> unsupported_reason;
  // Allocates, fills, quantizes (prequant) and plans; may throw Unsupported.
  std::function<std::unique_ptr<TimedWork>(const RecipeContext&)> prepare;
};

class BenchSession {
 public:
  explicit BenchSession(const BenchOptions& options);
  const BenchOptions& options() const { return options_; }
  ~BenchSession();

  // Keeps `definition` for run_case(); returns its index.
  size_t add_case(CaseDefinition definition);
  const std::vector<CaseDefinition>& cases() const { return cases_; }

  // Creates the GPU resources and takes the run-level measurements. Not called when only
  // listing cases (no GPU needed then).
  void start_gpu();
  const DeviceInfo& device() const { return device_; }
  const RunMeasurements& measurements() const { return measurements_; }
  const CublasLtContext& cublas() const { return *cublas_; }
  cudaStream_t stream() const { return stream_; }
  ClockMonitor& clock_monitor() { return *clock_monitor_; }
  const KernelTimer& kernel_timer() const { return *kernel_timer_; }
  // Null with --gpc_clock=off.
  const GpcClockSampler* gpc_clock_sampler() const { return gpc_clock_sampler_.get(); }
  // Warms the GPU up before the first case (timing/gpu_warmup.h). With --timeline, the warm-up's
  // NVML readings are the file's first rows (group "warmup"): how the GPU heated up, and where the
  // warm-up stopped.
  WarmupResult warm_up();

  // The body of every registered benchmark: case `index` of add_case().
  void run_case(benchmark::State& state, size_t index);

 private:
  struct PreparedCase {
    size_t index = 0;
    std::unique_ptr<TimedWork> work;
    std::vector<std::string> nvtx_names;
    bool settled = false;  // a Google-Benchmark-driven loop settles once per case
  };
  // A case's outcome, kept until Google Benchmark asks for it.
  struct CaseResult {
    std::string error;        // failed: the message
    std::string skip_reason;  // skipped: why
    double seconds = 0;       // the reported time of one iteration
    benchmark::UserCounters counters;
    std::string label;
    std::string kernel_list;  // for --list_kernels
    std::string trial_times;  // for --list_kernels
    double bytes_moved = 0;   // TimedWork::bytes_moved, for the same-bytes copy
  };

  // Prepares case `index`, verifies it (--verify) and runs it --warmup_runs times. Throws as
  // definition.prepare does, and std::runtime_error with the numbers when verification fails.
  std::unique_ptr<PreparedCase> prepare(size_t index);
  // Prepares and times the group of case `index`, queueing a result for every member.
  void measure_group(size_t index);
  std::vector<size_t> group_members(size_t index);
  // The outcome of a case that could not be prepared.
  static CaseResult failure_result(const std::exception_ptr& failure);
  CaseResult measured_result(const PreparedCase& prepared, const MemberSamples& samples,
                             const SettleResult& settle, const GroupSamples& group) const;
  void report(benchmark::State& state, const CaseResult& result, const std::string& name) const;
  // pct_of_same_bytes_copy for a result of work measured by its bytes (TimedWork::bytes_moved)
  // at `seconds` an iteration: after its group is timed, outside the profiler's range, with as
  // few of the group's buffers held as may be (the copy needs memory of its own). A copy that
  // cannot be measured leaves the counter out and says why in the label.
  void add_same_bytes_copy(CaseResult& result, double seconds);
  // With an explicit --benchmark_min_time: Google Benchmark's loop, one case at a time.
  void run_benchmark_loop(benchmark::State& state, size_t index);
  GroupTimer group_timer();

  BenchOptions options_;
  std::vector<CaseDefinition> cases_;
  std::optional<std::vector<bool>> selected_;  // by --benchmark_filter; computed on first use
  std::map<size_t, std::deque<CaseResult>> results_;
  std::unique_ptr<PreparedCase> prepared_;  // the Google-Benchmark-driven loop's case

  DeviceInfo device_;
  RunMeasurements measurements_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<CublasLtContext> cublas_;
  std::unique_ptr<IterationTimer> timer_;
  std::unique_ptr<CopyYardstick> copy_yardstick_;  // times with timer_, between groups
  std::unique_ptr<ClockMonitor> clock_monitor_;
  std::unique_ptr<KernelTimer> kernel_timer_;
  std::unique_ptr<GpcClockSampler> gpc_clock_sampler_;  // with --gpc_clock=on
  std::unique_ptr<Timeline> timeline_;                  // with --timeline
};

// Google Benchmark 1.8 can mark a case skipped; 1.7 only errored. Either way the reason shows.
void skip_case(benchmark::State& state, const std::string& reason);

}  // namespace gemmscope
