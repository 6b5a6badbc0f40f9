#include "bench/timing/steady_state_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include "bench/timing/nvtx_range.h"
#include "bench/timing/period_mean.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Without NVML nothing says when the GPU has settled: settle for this long instead.
constexpr double kBlindSettleSeconds = 1.0;
// How often the sampling loop asks the stopping rule (sorting every member's samples).
constexpr double kStoppingCheckSeconds = 0.05;
// A batch holds about this much GPU work, and at most this many pieces of work.
constexpr double kBatchSeconds = 0.01;
constexpr size_t kMaxBatchItems = 32;

}  // namespace

GroupTimer::GroupTimer(IterationTimer& timer, ClockMonitor& clock_monitor,
                       KernelTimer& kernel_timer, GpcClockSampler* gpc_clock_sampler,
                       cudaStream_t stream, const TimingSettings& settings)
    : timer_(timer),
      clock_monitor_(clock_monitor),
      kernel_timer_(kernel_timer),
      gpc_clock_sampler_(settings.gpc_clock ? gpc_clock_sampler : nullptr),
      stream_(stream),
      settings_(settings) {}

void GroupTimer::enqueue_member(const GroupMember& member, std::uint64_t id, cudaStream_t stream,
                                bool in_range) {
  // The NVTX range and the kernel mark hold exactly the case's own work: the L2 flush and the
  // stream blocker are launched outside them.
  const NvtxRange range(in_range ? member.nvtx_names : std::vector<std::string>{});
  if (recording_kernels_)
    kernel_timer_.enter(id);
  member.work->enqueue(stream);
  if (recording_kernels_)
    kernel_timer_.leave();
}

double GroupTimer::time_iteration(const GroupMember& member, std::uint64_t id) {
  const bool fits_held_stream =
      member.work->launches() + kSampleOverheadLaunches <= kMaxBatchLaunches;
  return timer_.time(
      stream_, [&](cudaStream_t stream) { enqueue_member(member, id, stream, true); },
      fits_held_stream);
}

size_t batch_sample_count(const std::vector<size_t>& member_launches, std::uint64_t position,
                          size_t wanted) {
  size_t count = 0;
  size_t launches = 0;
  while (count < std::max<size_t>(wanted, 1)) {
    const size_t member = static_cast<size_t>((position + count) % member_launches.size());
    launches += member_launches[member] + kSampleOverheadLaunches;
    if (count > 0 && launches > kMaxBatchLaunches)
      break;
    ++count;
  }
  return count;
}

void GroupTimer::run_round_robin(const std::vector<GroupMember>& members,
                                 const std::function<bool(const std::vector<TimedItem>&)>& take,
                                 AlternativeTrial* trial) {
  TimedBatch batches[2];
  std::vector<TimedItem> items[2];
  std::vector<size_t> member_launches;
  for (const GroupMember& member : members)
    member_launches.push_back(member.work->launches());
  size_t rounds_per_batch = 1;
  const auto enqueue = [&](int b) {
    const size_t count =
        batch_sample_count(member_launches, next_position_, rounds_per_batch * members.size());
    items[b].clear();
    size_t launches = 0;
    for (size_t i = 0; i < count; ++i) {
      const std::uint64_t position = next_position_ + i;
      const size_t member = static_cast<size_t>(position % members.size());
      items[b].push_back({member, position / members.size(), 0, 0});
      launches += member_launches[member] + kSampleOverheadLaunches;
    }
    next_position_ += count;
    timer_.enqueue_batch(
        stream_, items[b].size(),
        [&](cudaStream_t stream, size_t i) {
          TimedItem& item = items[b][i];
          if (trial != nullptr) {
            item.alternative = trial->next(item.member);
            members[item.member].work->use_alternative(item.alternative);
          }
          // A trial's samples run alternatives the case may not keep: outside its NVTX range,
          // which a profiler's range filter (ncu --nvtx-include) then finds holding the kept one.
          enqueue_member(members[item.member], kernel_id(item.member, item.round), stream,
                         trial == nullptr);
        },
        // A trial's batches are not held: an alternative that waits on the GPU from the host
        // (a library's synchronous copy of its arguments) would wait for a blocker that only
        // the host can release. Its samples may then include launch gaps, which count against
        // a many-launch alternative, as they would in a training step.
        batches[b], /*hold_stream=*/launches <= kMaxBatchLaunches && trial == nullptr);
  };
  int current = 0;
  enqueue(current);
  while (true) {
    enqueue(current ^ 1);
    const std::vector<double> seconds = batches[current].wait();
    double batch_seconds = 0;
    for (size_t i = 0; i < seconds.size(); ++i) {
      items[current][i].seconds = seconds[i];
      batch_seconds += seconds[i];
    }
    if (!take(items[current]))
      break;
    // Batches of about kBatchSeconds of work: long enough that the host is well ahead, short
    // enough to decide often; and few enough launches to queue behind a held stream.
    const double round_seconds =
        batch_seconds / static_cast<double>(seconds.size()) * static_cast<double>(members.size());
    const size_t max_rounds = std::max<size_t>(1, kMaxBatchItems / members.size());
    rounds_per_batch = std::clamp<size_t>(
        static_cast<size_t>(std::ceil(kBatchSeconds / std::max(round_seconds, 1e-9))), 1,
        max_rounds);
    current ^= 1;
  }
  batches[current ^ 1].wait();
}

SettleResult GroupTimer::settle(const std::vector<GroupMember>& members) {
  clock_monitor_.start();
  SettleResult result;
  std::vector<size_t> alternatives;
  for (const GroupMember& member : members)
    alternatives.push_back(member.work->alternatives());
  AlternativeTrial trial(alternatives);
  if (members.empty() || (!settings_.steady_state && !trial.needed()))
    return result;
  result.attempted = settings_.steady_state;
  const double limit = clock_monitor_.available()
                           ? settings_.max_settle_s
                           : std::min(kBlindSettleSeconds, settings_.max_settle_s);
  const Clock::time_point start = Clock::now();
  bool settling = settings_.steady_state;
  run_round_robin(
      members,
      [&](const std::vector<TimedItem>& items) {
        for (const TimedItem& item : items)
          trial.record(item.member, item.alternative, item.seconds);
        if (settling) {
          result.seconds = seconds_since(start);
          if (clock_monitor_.available() && clock_monitor_.settled()) {
            result.settled = true;
            settling = false;
          } else if (result.seconds >= limit) {
            result.settled = !clock_monitor_.available();  // blind: settled by assumption
            settling = false;
          }
        }
        return settling || !trial.complete();
      },
      trial.needed() ? &trial : nullptr);
  for (size_t i = 0; i < members.size(); ++i) {
    if (alternatives[i] > 1)
      members[i].work->keep_alternative(trial.fastest(i), trial.typical_seconds(i));
  }
  clock_monitor_.restart_summary();
  result.end_s = monotonic_seconds();
  return result;
}

void GroupTimer::begin_recording() {
  recording_kernels_ = settings_.kernel_timer && kernel_timer_.available();
  if (recording_kernels_)
    kernel_timer_.begin();
  if (gpc_clock_sampler_ != nullptr)
    gpc_clock_sampler_->start();
}

std::vector<KernelSummary> GroupTimer::end_recording(
    size_t members, GpcClockSummary* gpc_clock,
    const std::vector<std::optional<std::uint64_t>>* last_rounds) {
  std::vector<KernelSummary> summaries(members);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (gpc_clock_sampler_ != nullptr)
    *gpc_clock = gpc_clock_sampler_->stop();
  if (!recording_kernels_)
    return summaries;
  recording_kernels_ = false;
  std::vector<std::vector<std::vector<KernelActivity>>> iterations(members);
  for (auto& [id, activities] : kernel_timer_.end()) {
    const size_t member = static_cast<size_t>(id >> 32);
    const std::uint64_t round = id & 0xffffffffu;
    const bool kept =
        last_rounds == nullptr || (member < last_rounds->size() && (*last_rounds)[member] &&
                                   round <= *(*last_rounds)[member]);
    if (member < members && kept)
      iterations[member].push_back(std::move(activities));
  }
  for (size_t i = 0; i < members; ++i)
    summaries[i] = summarize_kernels(iterations[i]);
  return summaries;
}

GroupSamples GroupTimer::sample(const std::vector<GroupMember>& members) {
  GroupSamples result;
  result.members.resize(members.size());
  // A member of period N (TimedWork::period) gives one sample per N timed iterations.
  std::vector<PeriodMean> runs;
  // Each member's round of the last iteration its samples hold (none before its first sample).
  std::vector<std::optional<std::uint64_t>> last_rounds(members.size());
  for (const GroupMember& member : members)
    runs.emplace_back(member.work->period());
  begin_recording();
  const Clock::time_point start = Clock::now();
  double next_check = 0;
  bool targets_met = false;
  run_round_robin(members, [&](const std::vector<TimedItem>& items) {
    const double now = monotonic_seconds();
    for (const TimedItem& item : items) {
      const std::optional<double> sample = runs[item.member].add(item.seconds);
      if (!sample)
        continue;
      result.members[item.member].seconds.push_back(*sample);
      result.members[item.member].end_times_s.push_back(now);
      last_rounds[item.member] = item.round;
    }
    const double elapsed = seconds_since(start);
    if (elapsed >= next_check) {
      targets_met = true;
      for (const MemberSamples& member : result.members)
        targets_met = targets_met && noise_target_met(settings_.sampling, member.seconds);
      next_check = elapsed + kStoppingCheckSeconds;
    }
    // Held down by a limiter (power or temperature), the clock swings: sample longer.
    const bool clock_limited = (clock_monitor_.event_reasons_so_far() & kClockSlowdowns) != 0;
    result.verdict = sampling_verdict(settings_.sampling, elapsed, targets_met, clock_limited);
    result.sampling_s = elapsed;
    return result.verdict == SamplingVerdict::kContinue;
  });
  // The kernel timer counts the iterations the samples hold: not a run cut short at the end,
  // nor the batch still in flight when sampling stopped.
  const std::vector<KernelSummary> kernels =
      end_recording(members.size(), &result.gpc_clock, &last_rounds);
  for (size_t i = 0; i < members.size(); ++i)
    result.members[i].kernels = kernels[i];
  result.clocks = clock_monitor_.stop();
  return result;
}

}  // namespace gemmscope
