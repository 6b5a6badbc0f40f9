#pragma once
// Keeps the GPU busy with BF16 GEMMs on random data before the first case, until it is as warm
// as a training step keeps it. At its power cap a GPU's clock depends on its temperature: on
// an H100, the same group of FP8 GEMMs at the same 690 W ran at 1440 MHz at 66-70 C and at
// 1370 MHz at 74-75 C (2-3.5% slower), and the die takes tens of seconds to warm up. So the
// warm-up lasts at least --gpu_warmup seconds and then until the temperature has stopped
// rising (NVML reads whole degrees: by less than 1 C over 5 s), at most --max_warmup seconds.
// That is not thermal equilibrium: it stopped one H100 at 77 C, and the sweep that followed
// warmed it to 82 C, where it ran clock-limited by temperature below its power cap, its BF16
// cases up to 5.9% slower than in the sweep before. A longer window would wait for more of
// the rise and cost every sweep that much time; --max_warmup and --gpu_warmup let a user
// who needs the equilibrium wait for it.

#include <cuda_runtime.h>

#include <deque>
#include <utility>

#include "bench/clock_monitor.h"
#include "kernels/cublaslt_context.h"

namespace gemmscope {

struct WarmupSettings {
  double min_s = 3;
  double max_s = 60;
  double window_s = 5;    // the temperature must have risen by less than
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
