#pragma once
// Keeps the GPU busy with BF16 GEMMs on random data before the first case, until it is as warm
// as a training step keeps it. At its power cap a GPU's clock depends on its temperature: on
// an H100, the same group of FP8 GEMMs at the same 690 W ran at 1440 MHz at 66-70 C and at
// 1370 MHz at 74-75 C (2-3.5% slower), and the die takes tens of seconds to warm up. So the
// warm-up lasts at least --gpu_warmup seconds and then until the temperature has stopped
// rising (NVML reads whole degrees: by less than 1 C over 10 s), at most --max_warmup seconds.
// With a 5 s window, three H100s stopped warming up at 67, 69 and 77 C; the first sweep's
// GEMMs then heated them to 69, 71 and 82 C and the second sweep's to 72, 73 and 83 C (at
// 82 C one ran clock-limited by temperature, its BF16 cases up to 5.9% slower than the sweep
// before); a fourth, without warm-up, rose from 56 to 73 C in 40 s of GEMMs. Over 10 s the rule
// waits until the rise is below 0.1 C a second; each sweep pays the window (10 s on a warm
// GPU). It is still not equilibrium, which takes a minute or more from cold: --gpu_warmup
// and --max_warmup let a user who needs it wait for it.

#include <cuda_runtime.h>

#include <deque>
#include <utility>

#include "bench/timing/clock_monitor.h"
#include "kernels/cublaslt/context.h"

namespace gemmscope {

struct WarmupSettings {
  double min_s = 3;
  double max_s = 60;
  double window_s = 10;   // the temperature must have risen by less than
  double max_rise_c = 1;  // this much over that long
};

// Decides from temperature readings (in time order) when a GPU under load stopped warming.
class TemperatureTrend {
 public:
  TemperatureTrend(double window_s, double max_rise_c)
      : window_s_(window_s), max_rise_c_(max_rise_c) {}
  void add(double time_s, double celsius);
  // True once readings span the window and the latest is less than max_rise_c above the
  // reading a window earlier.
  bool settled() const;

 private:
  double window_s_;
  double max_rise_c_;
  std::deque<std::pair<double, double>> readings_;  // (time, celsius), the last window's
};

struct WarmupResult {
  double seconds = 0;
  bool temperature_settled = false;  // false: stopped at max_s, or no temperature readings
  double temperature_c = 0;          // the last reading, 0 without NVML
};

WarmupResult warm_up_gpu(const WarmupSettings& settings, const CublasLtContext& cublas,
                         cudaStream_t stream, ClockMonitor& clock_monitor);

}  // namespace gemmscope
