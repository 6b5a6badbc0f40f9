#pragma once
// Times a group of prepared cases the way a training step runs them: at the GPU's steady
// state, power-capped where the work is heavy enough.
//
// A power-capped GPU's clock is set by the power limiter from the board power averaged over
// about a second (settle_detector.h), so it depends on the mix of work the GPU has been
// running, not on one GEMM: in a training step every GEMM runs at the clock the whole step's
// mix holds. A case's group is that mix — the GEMM cases of one precision (both modes), or one
// precision's quantization kernels — and the group is timed round-robin: first untimed,
// until NVML shows power and clock settled; then every member is sampled in turn until the
// stopping rule (stopping_rule.h) is met for all of them. Every member is so sampled across
// the same second or more, at the same state, whatever ran before the group. A group of one
// is a case timed alone.

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/timing/alternative_trial.h"
#include "bench/timing/clock_monitor.h"
#include "bench/timing/gpc_clock_sampler.h"
#include "bench/timing/iteration_timer.h"
#include "bench/timing/kernel_timer.h"
#include "bench/timing/stopping_rule.h"
#include "bench/timing/timed_work.h"

namespace gemmscope {

struct TimingSettings {
  bool steady_state = true;  // false: no settling, time from the first iteration on
  double max_settle_s = 5;   // give up settling after this long (the case's label says so)
  SamplingSettings sampling;
  bool kernel_timer = true;  // CUPTI records of each iteration's kernels
  // CUPTI PM sampling of the GPC clock while sampling. Off by default: it costs the GEMMs
  // time (gpc_clock_sampler.h).
  bool gpc_clock = false;
};

// One prepared case in a group.
struct GroupMember {
  TimedWork* work = nullptr;
  std::vector<std::string> nvtx_names;  // its NVTX range (nvtx_range.h)
};

struct SettleResult {
  bool attempted = false;  // false with --steady_state=off
  bool settled = false;    // false: attempted and stopped at max_settle_s
  double seconds = 0;
  double end_s = 0;  // when settling ended, on monotonic_seconds()'s clock
};

struct MemberSamples {
  std::vector<double> seconds;      // one per timed iteration (per period: TimedWork::period)
  std::vector<double> end_times_s;  // when each was taken, on monotonic_seconds()'s clock
  KernelSummary kernels;            // empty without the kernel timer
};

struct GroupSamples {
  std::vector<MemberSamples> members;  // in the order of the members given
  SamplingVerdict verdict = SamplingVerdict::kContinue;
  double sampling_s = 0;      // wall time of the sampling rounds
  ClockSummary clocks;        // NVML over the sampling rounds
  GpcClockSummary gpc_clock;  // the performance monitors over the sampling rounds
};

// Samples are enqueued in batches behind a held stream (iteration_timer.h), and a held stream
// takes only so many launches before the host blocks on the next one, until the blocker times
// out (nvbench advises about 32 kernels; a stream queues about 1000 small ones before the
// host blocks). Batches of 32 dense cases, about 128 launches, and samples of 320 kernels and
// memsets (DeepSeek-V3's autocast expert cases through the loop) run held on an H100. A batch holds
// at most this many launches, each sample counted as its work's launches() plus the L2 flush and
// its two events; a sample larger than that alone is enqueued without holding the stream. Two
// batches are in flight, so the one held never has more than half the queue behind its blocker.
inline constexpr size_t kMaxBatchLaunches = 512;
inline constexpr size_t kSampleOverheadLaunches = 3;

// How many round-robin samples the next batch takes from `position` (sample p is of member
// p % member_launches.size(), whose work launches member_launches[p % size]): `wanted`, or
// fewer so that their launches stay within kMaxBatchLaunches, but at least one.
size_t batch_sample_count(const std::vector<size_t>& member_launches, std::uint64_t position,
                          size_t wanted);

class GroupTimer {
 public:
  // `gpc_clock_sampler` may be null (--gpc_clock=off).
  GroupTimer(IterationTimer& timer, ClockMonitor& clock_monitor, KernelTimer& kernel_timer,
             GpcClockSampler* gpc_clock_sampler, cudaStream_t stream,
             const TimingSettings& settings);

  // Starts watching the clocks and runs the members round-robin, untimed, until the GPU has
  // settled (or max_settle_s); with steady_state off, only starts watching. Members with
  // alternatives (timed_work.h) cycle through them meanwhile, and each keeps its fastest
  // (alternative_trial.h); settling goes on until every alternative has been timed, and with
  // steady_state off the alternatives are still tried.
  SettleResult settle(const std::vector<GroupMember>& members);
  // Samples the members round-robin until the stopping rule ends it, then stops watching.
  GroupSamples sample(const std::vector<GroupMember>& members);

  // One timed iteration of `member` (what both of the above are made of, and what a loop
  // driven by Google Benchmark's own --benchmark_min_time runs): its GPU time in seconds.
  // `kernel_id`, when recording, marks its kernels for the kernel timer.
  double time_iteration(const GroupMember& member, std::uint64_t kernel_id);
  // Kernel recording and GPC clock sampling around a loop of time_iteration() calls; each is
  // off without CUPTI or when switched off. With `last_rounds`, member i's iterations of a
  // round past (*last_rounds)[i] (none, where it holds nothing) are left out of its summary.
  void begin_recording();
  std::vector<KernelSummary> end_recording(
      size_t members, GpcClockSummary* gpc_clock,
      const std::vector<std::optional<std::uint64_t>>* last_rounds = nullptr);

 private:
  // One timed piece of work of a batch.
  struct TimedItem {
    size_t member = 0;
    std::uint64_t round = 0;
    size_t alternative = 0;  // of the member's work, when a trial chose it
    double seconds = 0;
  };
  // Runs the members round-robin in batches, the next batch enqueued while one runs
  // (iteration_timer.h), and hands each finished batch to `take` until it returns false. The
  // batch still in flight then is waited for and dropped. A batch is whole rounds, unless
  // kMaxBatchLaunches cuts it short (the next batch goes on where it stopped).
  // With a `trial`, each sample first switches its member's work to the trial's next
  // alternative.
  void run_round_robin(const std::vector<GroupMember>& members,
                       const std::function<bool(const std::vector<TimedItem>&)>& take,
                       AlternativeTrial* trial = nullptr);
  // `in_range`: inside the member's NVTX range (nvtx_range.h).
  void enqueue_member(const GroupMember& member, std::uint64_t id, cudaStream_t stream,
                      bool in_range);

  IterationTimer& timer_;
  ClockMonitor& clock_monitor_;
  KernelTimer& kernel_timer_;
  GpcClockSampler* gpc_clock_sampler_;
  cudaStream_t stream_;
  TimingSettings settings_;
  bool recording_kernels_ = false;
  std::uint64_t next_position_ = 0;  // of the next sample in the round-robin order
};

// The kernel id of a member's iteration: the member in the high half, the iteration below.
inline std::uint64_t kernel_id(size_t member, std::uint64_t iteration) {
  return (static_cast<std::uint64_t>(member) << 32) | (iteration & 0xffffffffu);
}

}  // namespace gemmscope
