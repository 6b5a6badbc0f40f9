#pragma once
// A second timer, independent of the CUDA events: CUPTI's activity records of every kernel
// (and memset or memcpy) that a case's timed work launches, with the GPU's own start and end
// timestamps. The work of one timed iteration is marked with an external correlation id
// (cuptiActivityPushExternalCorrelationId), so the L2 flush and the stream blocker, launched
// outside the mark, are never counted. CUPTI is loaded at run time (dlopen) like NVML: a
// machine without it still runs, and the run's context says why there is no kernel timer.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gemmscope {

// One kernel, memset or memcpy of one iteration.
struct KernelActivity {
  std::string name;  // the kernel's name (demangled, without its parameter list), or "memset"
  double ms = 0;     // end - start on the GPU
  // The part of it that ran while an activity of the iteration that started before it was still
  // running: a programmatic dependent launch (quant/detail/dependent_launch.cuh) starts before
  // the kernel before it ends, so the iteration's GPU time is the durations' sum less these.
  double overlap_ms = 0;
};

// What the kernel timer saw of one case.
struct KernelSummary {
  int iterations = 0;  // iterations with at least one activity
  // Mean over iterations of the GPU time their activities cover (the durations' sum less the
  // overlaps), the time the events around the iteration must hold.
  double mean_ms = 0;
  int per_iteration = 0;  // activities per iteration (the most common count)
  // The activities of an iteration with that count, each with its median duration and overlap
  // (--list_kernels prints the durations: each activity's whole run).
  std::vector<KernelActivity> typical;
};

KernelSummary summarize_kernels(const std::vector<std::vector<KernelActivity>>& iterations);

// The activities of one iteration, taken in order of their GPU start times: each one's overlap
// with those before it, as KernelActivity::overlap_ms counts it.
class OverlapTracker {
 public:
  // How much of [start_ns, end_ns) an activity taken before it already covers, in ns.
  std::uint64_t take(std::uint64_t start_ns, std::uint64_t end_ns);

 private:
  std::uint64_t covered_until_ns_ = 0;  // the latest end of the activities taken
};

// A kernel's name as --list_kernels prints it: demangled, without its parameter list, "void"
// and anonymous namespaces ("gemmscope::amax_kernel<4>"); cuBLASLt's unmangled names as they
// are; "?" for none.
std::string readable_kernel_name(const char* name);

// "amax_kernel 32.0 us, tile_cast_kernel 45.7 us, ..." for a case's --list_kernels line.
std::string kernel_list_text(const KernelSummary& summary);

namespace detail {
class Cupti;  // the loaded library and its callbacks (kernel_timer.cpp)
}

class KernelTimer {
 public:
  // Loads CUPTI. Never throws: without it, available() is false.
  KernelTimer();
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  bool available() const { return cupti_ != nullptr; }
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // Starts recording. Between begin() and end(), work enqueued by this thread between
  // enter(id) and leave() belongs to iteration `id`.
  void begin();
  void enter(std::uint64_t id);
  void leave();
  // Waits for nothing: call it after the recorded work has finished (stream synchronized).
  // Stops recording and returns the activities of each iteration, in GPU start order.
  std::map<std::uint64_t, std::vector<KernelActivity>> end();

 private:
  std::unique_ptr<detail::Cupti> cupti_;
  std::string unavailable_reason_;
};

}  // namespace gemmscope
