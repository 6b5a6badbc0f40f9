#pragma once
// The clock the GPU's compute really ran at while a group was sampled, read from its own
// performance monitors (CUPTI's PM sampling, CUDA 12.6 and later) rather than from NVML.
//
// Why a second clock reading: on power-capped H100s one precision's group now and then ran
// 1.3-1.6% slower in one sweep than in the next while NVML showed a 5-7% *higher*, flat SM
// clock at the same power and temperature (docs/timing.md). NVML
// reports the clock the driver set; what the hardware ran may differ, and only the GPC cycle
// counters see that. Measured: on H100s the two agreed within about 1%, except for one group
// in that state, where the counters read 5% below NVML; on H200s the counters read 7-9% below
// NVML in every power-capped GEMM group (and agreed in the quantization groups), and BF16 GEMMs
// took 3.3% longer on an H200 than on an H100, as the counters' clocks predict (3.5%) and NVML's
// do not (6.6% faster). Between two sweeps on one H200, the counters' clock explained a BF16
// group's 1.1% shifts to within 0.1%.
//
// The sampler counts GPC cycles over fixed intervals of GPU time (a hardware trigger, every
// kIntervalNs): no kernel replay, nothing added to the timed stream. It is not free, though:
// with it on, power-capped GEMM groups on an H200 ran 0.4-1.5% slower, alternating on and off
// five times, every time in the same direction. So it is a diagnostic (--gpc_clock, off by
// default), and two runs are compared with it on in both. Like the kernel timer it is loaded
// at run time: a machine without it (or a process already under a profiler such as Nsight
// Compute) runs without it, and the run's context says why.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gemmscope {

// One sample of the performance monitors: an interval of GPU time and what was counted in it.
struct GpcSample {
  std::uint64_t start_ns = 0;  // GPU timestamps
  std::uint64_t end_ns = 0;
  double gpc_cycles = 0;                   // gpc__cycles_elapsed.avg: GPC clock cycles
  std::optional<double> sm_active_cycles;  // sm__cycles_active.avg: cycles an SM had work
};

struct GpcClockSummary {
  int samples = 0;      // 0: nothing was measured, and the other fields mean nothing
  double seconds = 0;   // the GPU time the samples cover
  double mean_mhz = 0;  // all cycles over all the time sampled
  double min_mhz = 0;   // the slowest sample's
  std::optional<double> sm_active_pct;  // SM-active cycles as a share of elapsed cycles
  bool overflowed = false;              // the hardware buffer dropped the oldest samples
};

// The first sample is left out: it reaches back before the measurement began. On an H200 a
// measurement of 0.3 s with every SM busy, 0.4 s after the previous one, came back as 150
// samples covering 0.76 s at 1086 MHz, where the SMs counted 1980 MHz (clock64()); the next
// measurement, started right after, was right. Samples of zero length are left out too (they
// carry no clock).
GpcClockSummary summarize_gpc_samples(const std::vector<GpcSample>& samples);

namespace detail {
class PmSampling;  // CUPTI's PM sampling objects and images (gpc_clock_sampler.cpp)
}

class GpcClockSampler {
 public:
  // The GPU's sampling interval. 2 ms: a group is sampled for 1-8 s, so 500-4000 samples.
  static constexpr std::uint64_t kIntervalNs = 2'000'000;

  // Sets up PM sampling on CUDA device `cuda_device` (its current context must exist). Never
  // throws: when CUPTI, the device or the counters are not available, available() is false.
  explicit GpcClockSampler(int cuda_device);
  ~GpcClockSampler();
  GpcClockSampler(const GpcClockSampler&) = delete;
  GpcClockSampler& operator=(const GpcClockSampler&) = delete;

  bool available() const { return pm_ != nullptr && failure_.empty(); }
  // Why not available: the set-up's or, later, a sampling call's error.
  std::string unavailable_reason() const { return failure_; }

  // Starts sampling; stop() ends it and summarizes the samples. Without the sampler both do
  // nothing (an empty summary). A CUPTI error makes the sampler unavailable from then on,
  // rather than failing the cases it watches.
  void start();
  GpcClockSummary stop();

 private:
  std::unique_ptr<detail::PmSampling> pm_;
  std::string failure_;
  bool running_ = false;
};

}  // namespace gemmscope
