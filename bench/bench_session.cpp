#include "bench/bench_session.h"

#include <cuda_profiler_api.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/nvtx_range.h"
#include "kernels/copy_bandwidth.h"
#include "quant/cuda_check.h"
#include "quant/unsupported.h"

namespace gemmscope {
namespace {

std::string free_memory_text() {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    return "";
  return " (" + std::to_string(free_bytes >> 20) + " MiB free of " +
         std::to_string(total_bytes >> 20) + " MiB)";
}

// cudaProfilerStart/Stop around a scope, for nsys/ncu "capture range" profiling.
class ProfilerScope {
 public:
  explicit ProfilerScope(bool enabled) : enabled_(enabled) {
    if (enabled_)
      CUDA_CHECK(cudaProfilerStart());
  }
  ~ProfilerScope() {
    if (enabled_)
      cudaProfilerStop();
  }
  ProfilerScope(const ProfilerScope&) = delete;
  ProfilerScope& operator=(const ProfilerScope&) = delete;

 private:
  bool enabled_;
};

// Clock counters of a timed loop; none when NVML took no samples.
void report_clocks(benchmark::State& state, const ClockSummary& clocks) {
  if (clocks.samples == 0)
    return;
  state.counters["sm_clock_mhz"] = clocks.mean_sm_clock_mhz;
  state.counters["sm_clock_min_mhz"] = clocks.min_sm_clock_mhz;
  if (clocks.mean_power_w)
    state.counters["power_w"] = *clocks.mean_power_w;
}

// The case's own label, and a note when its clocks were lowered while it was timed.
std::string label_with_clocks(const std::string& label, const ClockSummary& clocks) {
  const std::string slowdowns = clock_event_reasons_text(clocks.event_reasons);
  if (slowdowns.empty())
    return label;
  return label + (label.empty() ? "" : " ") + "[clocks: " + slowdowns + "]";
}

}  // namespace

void skip_case(benchmark::State& state, const std::string& reason) {
#if GEMMSCOPE_HAVE_SKIP_WITH_MESSAGE
  state.SkipWithMessage(reason);
#else
  state.SkipWithError(("skipped: " + reason).c_str());
#endif
}

BenchSession::~BenchSession() {
  prepared_.reset();
  clock_monitor_.reset();
  timer_.reset();
  cublas_.reset();
  if (stream_ != nullptr)
    cudaStreamDestroy(stream_);
}

void BenchSession::start_gpu() {
  device_ = query_device();
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  cublas_ = std::make_unique<CublasLtContext>();
  timer_ = std::make_unique<IterationTimer>(options_.l2_flush, /*hold_stream=*/!options_.profile);
  measurements_.copy_gbps = measure_copy_gbps(stream_);
  int cuda_device = 0;
  CUDA_CHECK(cudaGetDevice(&cuda_device));
  clock_monitor_ = std::make_unique<ClockMonitor>(cuda_device);
}

BenchSession::PreparedCase& BenchSession::prepare(const CaseDefinition& definition) {
  if (prepared_ && prepared_->name == definition.name)
    return *prepared_;
  prepared_.reset();  // free the previous case's buffers before allocating this one's
  auto prepared = std::make_unique<PreparedCase>();
  prepared->name = definition.name;
  const AlgorithmChoice algorithm =
      options_.autotune ? AlgorithmChoice::kAutotune : AlgorithmChoice::kHeuristic;
  prepared->work = definition.prepare(RecipeContext{device_, *cublas_, algorithm, stream_});
  if (options_.verify)
    prepared->verification_failure = prepared->work->verify(stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  prepared_ = std::move(prepared);
  return *prepared_;
}

void BenchSession::run_case(benchmark::State& state, const CaseDefinition& definition) {
  const std::string unsupported = definition.unsupported_reason(device_);
  if (!unsupported.empty()) {
    skip_case(state, unsupported);
    return;
  }
  try {
    PreparedCase& prepared = prepare(definition);
    if (!prepared.verification_failure.empty()) {
      state.SkipWithError(prepared.verification_failure.c_str());
      return;
    }
    time_case(state, prepared);
  } catch (const Unsupported& e) {
    prepared_.reset();
    skip_case(state, e.what());
  } catch (const CudaError& e) {
    prepared_.reset();
    if (e.code() == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // out-of-memory is not sticky; clear it for the next case
      skip_case(state, "does not fit in GPU memory" + free_memory_text() + ": " + e.what());
    } else {
      state.SkipWithError(e.what());
    }
  } catch (const std::exception& e) {
    prepared_.reset();
    state.SkipWithError(e.what());
  }
}

void BenchSession::time_case(benchmark::State& state, PreparedCase& prepared) {
  TimedWork& work = *prepared.work;
  for (int i = 0; i < options_.warmup_runs; ++i)
    work.enqueue(stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));

  double total_seconds = 0;
  ClockSummary clocks;
  {
    ProfilerScope profiler(options_.profile);
    // The NVTX range holds exactly the case's own work: the L2 flush and the stream blocker
    // are launched outside it, so a profiler filtering on the range sees only this case.
    const std::vector<std::string> range_names = nvtx_components(prepared.name);
    const auto enqueue = [&work, &range_names](cudaStream_t stream) {
      const NvtxRange range(range_names);
      work.enqueue(stream);
    };
    // NVML is sampled on a thread of its own while the loop runs (never on the stream). If
    // the loop throws, the next case's start() discards the unfinished measurement.
    clock_monitor_->start();
    for (auto _ : state) {
      const double seconds = timer_->time(stream_, enqueue);
      state.SetIterationTime(seconds);
      total_seconds += seconds;
    }
    clocks = clock_monitor_->stop();
  }
  if (state.iterations() > 0 && total_seconds > 0) {
    // Rates are computed here, over the GPU (manual) time, so they never depend on how a
    // Google Benchmark version derives its own.
    work.report(state.counters, total_seconds / static_cast<double>(state.iterations()),
                measurements_);
    report_clocks(state, clocks);
    const std::string label = label_with_clocks(work.label(), clocks);
    if (!label.empty())
      state.SetLabel(label);
  }
}

}  // namespace gemmscope
