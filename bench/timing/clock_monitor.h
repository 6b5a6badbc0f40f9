#pragma once
// The GPU's SM clock, power and clock-event ("throttle") reasons while a case is timed, so a
// result measured below the GPU's peak clock says so (as nvbench does). A host thread reads
// them from NVML every few milliseconds; it never touches a CUDA stream, so nothing is added
// to the timed work. NVML is loaded at run time (dlopen), not linked: gemm_bench must start on
// machines with the CUDA toolkit but no driver, e.g. for --benchmark_list_tests.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/timing/settle_detector.h"

namespace gemmscope {

// NVML's clock-event reason bits (nvml.h: nvmlClocksEventReason*, formerly
// nvmlClocksThrottleReason*) that lower the clocks of a GPU under load.
inline constexpr unsigned long long kClockEventSwPowerCap = 0x4;
inline constexpr unsigned long long kClockEventHwSlowdown = 0x8;
inline constexpr unsigned long long kClockEventSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kClockEventHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kClockEventHwPowerBrakeSlowdown = 0x80;
// Any of them: the GPU's clock is being held down by a limiter (power or temperature).
inline constexpr unsigned long long kClockSlowdowns =
    kClockEventSwPowerCap | kClockEventHwSlowdown | kClockEventSwThermalSlowdown |
    kClockEventHwThermalSlowdown | kClockEventHwPowerBrakeSlowdown;

// The slowdowns among NVML clock-event `reasons`, e.g. "SW power cap, HW thermal slowdown";
// empty when there are none. Other bits (GPU idle, applications clocks, sync boost, display
// clocks) do not slow a running case down and are left out.
std::string clock_event_reasons_text(unsigned long long reasons);

// Seconds on a monotonic clock shared by NVML readings and timed samples (--timeline).
double monotonic_seconds();

// What NVML saw between ClockMonitor::start() and stop().
struct ClockSummary {
  int samples = 0;  // 0: nothing was measured, and the other fields mean nothing
  double mean_sm_clock_mhz = 0;
  double min_sm_clock_mhz = 0;
  std::optional<double> mean_power_w;        // absent where the GPU does not report its power
  std::optional<double> mean_temperature_c;  // absent where it does not report its temperature
  unsigned long long event_reasons = 0;      // NVML clock-event bits, OR-ed over the samples
};

namespace detail {
class Nvml;         // the loaded library and the NVML device (clock_monitor.cpp)
struct NvmlSample;  // one reading
}  // namespace detail

class ClockMonitor {
 public:
  // Loads NVML and finds CUDA device `cuda_device` in it, by PCI bus id (CUDA and NVML may
  // number devices differently). Never throws: without NVML, available() is false.
  explicit ClockMonitor(int cuda_device, const SettleSettings& settle_settings = {});
  ~ClockMonitor();
  ClockMonitor(const ClockMonitor&) = delete;
  ClockMonitor& operator=(const ClockMonitor&) = delete;

  bool available() const { return nvml_ != nullptr; }
  // Empty when available, otherwise why not (no driver, no device, an NVML error).
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // Starts sampling on a thread of its own, discarding a measurement that was never stopped,
  // and starts a new settle detection (settle_detector.h). All members may be called from
  // any thread; without NVML they do nothing.
  void start();
  // Whether the readings since start() show the GPU settled; false without NVML.
  bool settled();
  // The summary stop() returns begins now (e.g. once settled), not at start().
  void restart_summary();
  // The clock-event reasons seen since start() or restart_summary().
  unsigned long long event_reasons_so_far();
  // The newest reading since start(), if any.
  std::optional<PowerReading> latest();
  // Stops sampling and summarizes it; an empty summary if sampling was not running.
  ClockSummary stop();
  // --timeline: keep every reading (time_s on monotonic_seconds()'s clock) until taken.
  void keep_readings(bool keep);
  std::vector<PowerReading> take_readings();

 private:
  struct Totals {
    int samples = 0;
    double sm_clock_mhz_sum = 0;
    double sm_clock_min_mhz = 0;
    int power_samples = 0;
    double power_w_sum = 0;
    int temperature_samples = 0;
    double temperature_c_sum = 0;
    unsigned long long event_reasons = 0;
  };
  void sample_until_stopped();
  void record(const detail::NvmlSample& sample, double seconds);  // with stop_mutex_ held
  void join_sampler();                                            // with control_mutex_ held

  std::unique_ptr<detail::Nvml> nvml_;
  std::string unavailable_reason_;

  std::mutex control_mutex_;  // serializes start() and stop()
  std::mutex stop_mutex_;     // guards stop_requested_, totals_ and settle_detector_
  std::condition_variable stop_requested_changed_;
  bool stop_requested_ = false;
  std::thread sampler_;
  Totals totals_;
  SettleSettings settle_settings_;
  SettleDetector settle_detector_;
  bool keep_readings_ = false;
  std::vector<PowerReading> readings_;
  std::optional<PowerReading> latest_;
};

}  // namespace gemmscope
