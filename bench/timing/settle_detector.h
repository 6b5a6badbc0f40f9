#pragma once
// Decides from NVML readings when a GPU under a steady load has reached its steady state.
//
// Measured on an H100 (700 W cap) under back-to-back GEMMs: the driver's power limiter
// regulates the board power averaged over one second. When a load starts, the instant power
// runs above the cap for most of a second at a high clock; then the limiter cuts the clock
// by 10-15% below where it will end up, and the clock swings with a period of about a second
// for several seconds, the swings shrinking. A GEMM timed during the first second reads up to
// 6% faster than at steady state, one timed at the bottom of a swing up to 10% slower. Short
// windows mislead: a 50 ms window can be flat at the top or the bottom of a swing. What is
// flat only at steady state is the agreement of the instant power with the one-second average
// the limiter works from (they differ by 15-20% at the bottom of a swing), together with a
// clock that stays in a band. Even at steady state the limiter keeps the clock swinging by
// about 3% either way with a period of about a second (timed GEMMs swing with it by 2-5%
// between quarter-seconds), so the band must hold that swing and the sampling must outlast
// several swings (stopping_rule.h). So:
//
//   settled = over the last `windows` windows of `window_s`, every window's mean SM clock lies
//             within `clock_band_pct` of the windows' common mean, and, while the GPU draws at
//             least 90% of its power limit, every window's mean instant power lies within
//             `power_tolerance_pct` of its mean one-second average.
//
// Replayed on the NVML timelines of two default sweeps on an H100 (--timeline), 4 windows of
// 250 ms, 3% and 8% declared GEMM groups settled 2-4.5 s after their load began, past the
// swings of 10-15% that follow a change of load, and quantization groups (below the cap, at
// the top clock) after 1-2 s. Without power readings, the clock alone decides.

#include <deque>
#include <optional>

namespace gemmscope {

struct SettleSettings {
  double window_s = 0.25;
  int windows = 4;
  double clock_band_pct = 3;
  double power_tolerance_pct = 8;
  // The power criterion applies from this share of the power limit on (a GPU far below its
  // limit is not being regulated, and its instant power is noisier than its average).
  double capped_share_of_limit = 0.9;
};

// One NVML reading.
struct PowerReading {
  double time_s = 0;  // any monotonic clock
  double sm_clock_mhz = 0;
  std::optional<double> instant_power_w;
  std::optional<double> average_power_w;  // the driver's one-second average
  std::optional<double> power_limit_w;    // the enforced limit
  // Not used to decide; kept for --timeline, to tell apart states the SM clock and the power
  // alone do not (an H100 has run a group slower at a higher SM clock and the same power).
  std::optional<double> temperature_c;
  std::optional<double> memory_clock_mhz;
  unsigned long long clock_event_reasons = 0;  // NVML's bits, as clock_monitor.h names them
};

class SettleDetector {
 public:
  explicit SettleDetector(const SettleSettings& settings = {}) : settings_(settings) {}

  // Readings must come in time order. Once settled, stays settled.
  void add(const PowerReading& reading);
  bool settled() const { return settled_; }

 private:
  struct Window {
    int readings = 0;
    double clock_sum = 0;
    int power_readings = 0;
    double instant_sum = 0;
    double average_sum = 0;
    double limit_sum = 0;
  };
  void close_window();
  bool windows_agree() const;

  SettleSettings settings_;
  std::optional<double> window_start_s_;
  Window current_;
  std::deque<Window> closed_;  // the last settings_.windows closed windows
  bool settled_ = false;
};

}  // namespace gemmscope
