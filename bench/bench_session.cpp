#include "bench/bench_session.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/case_filter.h"
#include "bench/timing/nvtx_range.h"
#include "bench/timing/sample_statistics.h"
#include "kernels/copy_bandwidth.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

namespace gemmscope {
namespace {

// --verify: for cases this long, the event time may exceed the kernel time by at most 2%, or
// by the gaps around and between back-to-back launches where they weigh more. On an H100 the
// event time exceeded the kernel time (then the sum of the kernels' own times: nothing
// overlapped) by 3.4 us for one kernel, 5 us for two, 6.5 us for three, 12.4 us for six and
// 14 us for ten; on an H200 by up to 19.1 us for ten. Expert cases of many short activities (an
// autocast case quantizes each expert's operands apart) showed 2.1-2.9 us an activity behind a held
// stream on an H100, and the loop's back-to-back BF16 GEMMs up to 3.4. The check allows 4 us plus 3
// us a kernel (or memset, or memcpy). Below 100 us only the order is checked.
constexpr double kKernelCheckMinSeconds = 100e-6;
constexpr double kKernelCheckTolerance = 0.02;
constexpr double kFixedGapSeconds = 4e-6;
constexpr double kLaunchGapSeconds = 3e-6;
// The events' resolution: a kernel sum may exceed the event time by this much.
constexpr double kEventResolutionSeconds = 1e-6;

constexpr const char* kDoesNotFit = "does not fit in GPU memory";

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

// Clock counters of a case's sampling; none when NVML took no samples.
void add_clock_counters(benchmark::UserCounters& counters, const ClockSummary& clocks) {
  if (clocks.samples == 0)
    return;
  counters["sm_clock_mhz"] = clocks.mean_sm_clock_mhz;
  counters["sm_clock_min_mhz"] = clocks.min_sm_clock_mhz;
  if (clocks.mean_power_w)
    counters["power_w"] = *clocks.mean_power_w;
  // At the power cap times move with the temperature: the H100s measured, by 0.1-0.5% per
  // degree (faster when warmer on some, slower on others), so two runs' temperatures explain
  // part of their difference (tools/run_diff.py shows them per group).
  if (clocks.mean_temperature_c)
    counters["temperature_c"] = *clocks.mean_temperature_c;
}

// The clock the performance monitors counted, beside NVML's; none without samples.
void add_gpc_clock_counters(benchmark::UserCounters& counters, const GpcClockSummary& gpc_clock) {
  if (gpc_clock.samples == 0)
    return;
  counters["gpc_clock_mhz"] = gpc_clock.mean_mhz;
  if (gpc_clock.sm_active_pct)
    counters["sm_active_pct"] = *gpc_clock.sm_active_pct;
}

void append_note(std::string& label, const std::string& note) {
  label += (label.empty() ? "" : " ") + ("[" + note + "]");
}

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// --verify: the two timers must agree. Empty when they do.
std::string kernel_time_disagreement(double event_s, const KernelSummary& kernels) {
  if (kernels.iterations == 0)
    return "";
  const double kernel_s = kernels.mean_ms * 1e-3;
  if (kernel_s > event_s + kEventResolutionSeconds) {
    return "kernel time " + fixed(kernel_s * 1e6, 1) + " us exceeds event time " +
           fixed(event_s * 1e6, 1) + " us";
  }
  const double allowed = std::max(kKernelCheckTolerance * event_s,
                                  kFixedGapSeconds + kLaunchGapSeconds * kernels.per_iteration);
  if (event_s >= kKernelCheckMinSeconds && event_s - kernel_s > allowed) {
    return "event time " + fixed(event_s * 1e6, 1) + " us exceeds kernel time " +
           fixed(kernel_s * 1e6, 1) + " us of " + std::to_string(kernels.per_iteration) +
           " kernels by more than " + fixed(allowed * 1e6, 1) + " us";
  }
  return "";
}

}  // namespace

void skip_case(benchmark::State& state, const std::string& reason) {
#if GEMMSCOPE_HAVE_SKIP_WITH_MESSAGE
  state.SkipWithMessage(reason);
#else
  state.SkipWithError(("skipped: " + reason).c_str());
#endif
}

BenchSession::BenchSession(const BenchOptions& options) : options_(options) {}

BenchSession::~BenchSession() {
  prepared_.reset();
  gpc_clock_sampler_.reset();
  kernel_timer_.reset();
  clock_monitor_.reset();
  copy_yardstick_.reset();
  timer_.reset();
  cublas_.reset();
  if (stream_ != nullptr)
    cudaStreamDestroy(stream_);
}

size_t BenchSession::add_case(CaseDefinition definition) {
  cases_.push_back(std::move(definition));
  return cases_.size() - 1;
}

void BenchSession::start_gpu() {
  device_ = query_device();
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  cublas_ = std::make_unique<CublasLtContext>();
  timer_ = std::make_unique<IterationTimer>(options_.l2_flush, /*hold_stream=*/!options_.profile);
  measurements_.copy_gbps = measure_copy_gbps(stream_);
  copy_yardstick_ = std::make_unique<CopyYardstick>(*timer_, stream_);
  int cuda_device = 0;
  CUDA_CHECK(cudaGetDevice(&cuda_device));
  clock_monitor_ = std::make_unique<ClockMonitor>(cuda_device);
  kernel_timer_ = std::make_unique<KernelTimer>();
  if (options_.timing.gpc_clock)
    gpc_clock_sampler_ = std::make_unique<GpcClockSampler>(cuda_device);
  if (!options_.timeline_path.empty()) {
    timeline_ = std::make_unique<Timeline>(options_.timeline_path);
    clock_monitor_->keep_readings(true);
  }
}

WarmupResult BenchSession::warm_up() {
  const WarmupResult result = warm_up_gpu(options_.warmup, *cublas_, stream_, *clock_monitor_);
  if (timeline_) {
    timeline_->write_group("warmup", {}, SettleResult{}, GroupSamples{},
                           clock_monitor_->take_readings());
  }
  return result;
}

GroupTimer BenchSession::group_timer() {
  return GroupTimer(*timer_, *clock_monitor_, *kernel_timer_, gpc_clock_sampler_.get(), stream_,
                    options_.timing);
}

std::unique_ptr<BenchSession::PreparedCase> BenchSession::prepare(size_t index) {
  const CaseDefinition& definition = cases_[index];
  auto prepared = std::make_unique<PreparedCase>();
  prepared->index = index;
  prepared->nvtx_names = nvtx_components(definition.name);
  const AlgorithmChoice algorithm =
      options_.autotune ? AlgorithmChoice::kAutotune : AlgorithmChoice::kHeuristic;
  prepared->work =
      definition.prepare(RecipeContext{device_, *cublas_, algorithm, stream_, options_.grouped,
                                       options_.provider, options_.microbatches});
  if (options_.verify) {
    const std::string failure = prepared->work->verify(stream_);
    if (!failure.empty())
      throw std::runtime_error(failure);
  }
  for (int i = 0; i < options_.warmup_runs; ++i)
    prepared->work->enqueue(stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return prepared;
}

std::vector<size_t> BenchSession::group_members(size_t index) {
  if (!selected_) {
    const CaseFilter filter(benchmark::GetBenchmarkFilter());
    selected_.emplace();
    for (const CaseDefinition& definition : cases_)
      selected_->push_back(filter.selects(definition.name));
  }
  // The case asked for first, then the rest of its group in registration order.
  std::vector<size_t> members = {index};
  for (size_t j = 0; j < cases_.size(); ++j) {
    if (j == index || cases_[j].group != cases_[index].group || !(*selected_)[j])
      continue;
    if (!cases_[j].unsupported_reason(device_).empty())
      continue;  // will be skipped
    // Members with results still waiting get one more: each group run serves one call of
    // every member (one repetition each, in whatever order Google Benchmark asks).
    members.push_back(j);
  }
  return members;
}

BenchSession::CaseResult BenchSession::failure_result(const std::exception_ptr& failure) {
  CaseResult result;
  try {
    std::rethrow_exception(failure);
  } catch (const Unsupported& e) {
    result.skip_reason = e.what();
  } catch (const CudaError& e) {
    if (e.code() == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // out-of-memory is not sticky; clear it for the next case
      result.skip_reason = kDoesNotFit + free_memory_text() + ": " + e.what();
    } else {
      result.error = e.what();
    }
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

void BenchSession::measure_group(size_t index) {
  std::vector<std::unique_ptr<PreparedCase>> prepared;
  for (const size_t member : group_members(index)) {
    try {
      prepared.push_back(prepare(member));
    } catch (...) {
      CaseResult failure = failure_result(std::current_exception());
      // The group is as large as memory allows; this member gets a group of its own later.
      if (member != index && failure.skip_reason.rfind(kDoesNotFit, 0) == 0)
        break;
      results_[member].push_back(std::move(failure));
      if (member == index)
        return;
    }
  }
  std::vector<GroupMember> members;
  for (const std::unique_ptr<PreparedCase>& p : prepared)
    members.push_back({p->work.get(), p->nvtx_names});
  GroupTimer timer = group_timer();
  try {
    const ProfilerScope profiler(options_.profile);
    clock_monitor_->take_readings();  // a timeline's readings start with the group
    const SettleResult settle = timer.settle(members);
    const GroupSamples samples = timer.sample(members);
    for (size_t i = 0; i < prepared.size(); ++i) {
      results_[prepared[i]->index].push_back(
          measured_result(*prepared[i], samples.members[i], settle, samples));
    }
    if (timeline_) {
      std::vector<std::string> names;
      for (const std::unique_ptr<PreparedCase>& p : prepared)
        names.push_back(cases_[p->index].name);
      timeline_->write_group(cases_[index].group, names, settle, samples,
                             clock_monitor_->take_readings());
    }
  } catch (const std::exception& e) {
    clock_monitor_->stop();
    for (const std::unique_ptr<PreparedCase>& p : prepared)
      results_[p->index].push_back(CaseResult{e.what(), "", 0, {}, "", "", "", 0});
  }
  std::vector<size_t> timed;
  for (const std::unique_ptr<PreparedCase>& p : prepared)
    timed.push_back(p->index);
  prepared.clear();  // the group's buffers, freed for the copies
  for (const size_t member : timed) {
    CaseResult& result = results_[member].back();
    add_same_bytes_copy(result, result.seconds);
  }
}

void BenchSession::add_same_bytes_copy(CaseResult& result, double seconds) {
  if (!result.error.empty() || !result.skip_reason.empty() ||
      result.bytes_moved < CopyYardstick::kMinBytesMoved || seconds <= 0) {
    return;
  }
  try {
    const double copy_gbps = copy_yardstick_->gbps(result.bytes_moved);
    if (copy_gbps > 0) {
      result.counters["pct_of_same_bytes_copy"] =
          100.0 * result.bytes_moved / seconds / 1e9 / copy_gbps;
    } else {
      append_note(result.label, "no same-bytes copy: its buffers do not fit in GPU memory");
    }
  } catch (const std::exception& e) {
    append_note(result.label, std::string("no same-bytes copy: ") + e.what());
  }
}

BenchSession::CaseResult BenchSession::measured_result(const PreparedCase& prepared,
                                                       const MemberSamples& samples,
                                                       const SettleResult& settle,
                                                       const GroupSamples& group) const {
  CaseResult result;
  const TimedWork& work = *prepared.work;
  // The mean of the samples, without outliers (timing/sample_statistics.h says why not the median).
  const SampleSummary summary = summarize_samples(samples.seconds);
  result.seconds = summary.mean;
  if (result.seconds <= 0) {
    result.error = "no samples were taken";
    return result;
  }
  work.report(result.counters, result.seconds, measurements_);
  result.bytes_moved = work.bytes_moved();
  benchmark::UserCounters& counters = result.counters;
  const double noise = relative_half_width_pct(summary);
  counters["samples"] = static_cast<double>(samples.seconds.size());
  if (summary.outliers > 0)
    counters["outliers"] = summary.outliers;
  if (std::isfinite(noise))
    counters["noise_pct"] = noise;
  if (settle.attempted)
    counters["settle_ms"] = settle.seconds * 1e3;
  add_clock_counters(counters, group.clocks);
  add_gpc_clock_counters(counters, group.gpc_clock);
  if (samples.kernels.iterations > 0) {
    counters["kernel_ms"] = samples.kernels.mean_ms;
    counters["kernels"] = samples.kernels.per_iteration;
    result.kernel_list = kernel_list_text(samples.kernels);
  }

  result.label = work.label();
  result.trial_times = work.trial_times();
  const std::string slowdowns = clock_event_reasons_text(group.clocks.event_reasons);
  if (!slowdowns.empty())
    append_note(result.label, "clocks: " + slowdowns);
  if (settle.attempted && !settle.settled)
    append_note(result.label, "not settled after " + fixed(settle.seconds, 1) + " s");
  if (!options_.profile && work.launches() + kSampleOverheadLaunches > kMaxBatchLaunches) {
    // Too many launches to queue behind a held stream: the host enqueued them while the GPU
    // ran, so launch gaps may be in the time (kernel_ms, without them, says how much).
    append_note(result.label,
                "stream not held: about " + std::to_string(work.launches()) + " launches a sample");
  }
  // The group stops at --max_time when any member is above the target; only those say so.
  const double max_noise = options_.timing.sampling.max_noise_pct;
  if (group.verdict == SamplingVerdict::kTimedOut && !(noise <= max_noise)) {
    append_note(result.label, "noise " + (std::isfinite(noise) ? fixed(noise, 2) : "n/a") + "% > " +
                                  fixed(max_noise, 2) + "% after " + fixed(group.sampling_s, 1) +
                                  " s");
  }
  if (options_.verify) {
    const std::string disagreement = kernel_time_disagreement(result.seconds, samples.kernels);
    if (!disagreement.empty())
      result.error = "timers disagree: " + disagreement;
  }
  return result;
}

void BenchSession::report(benchmark::State& state, const CaseResult& result,
                          const std::string& name) const {
  if (!result.skip_reason.empty()) {
    skip_case(state, result.skip_reason);
    return;
  }
  if (!result.error.empty()) {
    state.SkipWithError(result.error.c_str());
    return;
  }
  // One Google Benchmark iteration stands for the whole measurement: its time is the mean
  // of the samples (counter `samples` says how many).
  for (auto _ : state)
    state.SetIterationTime(result.seconds);
  for (const auto& [name, counter] : result.counters)
    state.counters[name] = counter;
  if (!result.label.empty())
    state.SetLabel(result.label);
  if (options_.list_kernels && !result.kernel_list.empty()) {
    std::fprintf(stderr, "kernels of %s: %s\n", name.c_str(), result.kernel_list.c_str());
  }
  if (options_.list_kernels && !result.trial_times.empty())
    std::fprintf(stderr, "trial of %s: %s\n", name.c_str(), result.trial_times.c_str());
}

void BenchSession::run_case(benchmark::State& state, size_t index) {
  const std::string unsupported = cases_[index].unsupported_reason(device_);
  if (!unsupported.empty()) {
    skip_case(state, unsupported);
    return;
  }
  if (options_.benchmark_drives_iterations) {
    run_benchmark_loop(state, index);
    return;
  }
  if (results_[index].empty())
    measure_group(index);
  if (results_[index].empty()) {
    state.SkipWithError("internal error: the case's group was timed without it");
    return;
  }
  const CaseResult result = std::move(results_[index].front());
  results_[index].pop_front();
  report(state, result, cases_[index].name);
}

void BenchSession::run_benchmark_loop(benchmark::State& state, size_t index) {
  try {
    if (!prepared_ || prepared_->index != index) {
      prepared_.reset();  // free the previous case's buffers before allocating this one's
      prepared_ = prepare(index);
    }
    const GroupMember member{prepared_->work.get(), prepared_->nvtx_names};
    GroupTimer timer = group_timer();
    // Google Benchmark calls this several times while it sizes the iteration count: settle
    // on the first call only, so later calls find the GPU already there.
    SettleResult settle;
    if (prepared_->settled)
      clock_monitor_->start();
    else
      settle = timer.settle({member});
    prepared_->settled = true;
    MemberSamples samples;
    GroupSamples group;
    {
      const ProfilerScope profiler(options_.profile);
      timer.begin_recording();
      std::uint64_t iteration = 0;
      // One Google Benchmark iteration is one period of the work (TimedWork::period): its mean.
      const size_t period = std::max<size_t>(1, prepared_->work->period());
      for (auto _ : state) {
        double seconds = 0;
        for (size_t i = 0; i < period; ++i)
          seconds += timer.time_iteration(member, kernel_id(0, iteration++));
        seconds /= static_cast<double>(period);
        state.SetIterationTime(seconds);
        samples.seconds.push_back(seconds);
      }
      samples.kernels = timer.end_recording(1, &group.gpc_clock).front();
    }
    group.clocks = clock_monitor_->stop();
    CaseResult result = measured_result(*prepared_, samples, settle, group);
    // Google Benchmark reports the mean of its iterations here; the rates follow it. The case's
    // buffers stay (Google Benchmark may call again for the same case).
    double total = 0;
    for (const double seconds : samples.seconds)
      total += seconds;
    if (!samples.seconds.empty()) {
      const double mean = total / samples.seconds.size();
      prepared_->work->report(result.counters, mean, measurements_);
      add_same_bytes_copy(result, mean);
    }
    if (!result.error.empty()) {
      state.SkipWithError(result.error.c_str());
      return;
    }
    for (const auto& [name, counter] : result.counters)
      state.counters[name] = counter;
    if (!result.label.empty())
      state.SetLabel(result.label);
  } catch (...) {
    clock_monitor_->stop();
    prepared_.reset();
    const CaseResult failure = failure_result(std::current_exception());
    if (!failure.skip_reason.empty())
      skip_case(state, failure.skip_reason);
    else
      state.SkipWithError(failure.error.c_str());
  }
}

}  // namespace gemmscope
