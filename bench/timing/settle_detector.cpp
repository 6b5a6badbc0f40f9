#include "bench/timing/settle_detector.h"

#include <cmath>

namespace gemmscope {

void SettleDetector::add(const PowerReading& reading) {
  if (settled_)
    return;
  if (!window_start_s_)
    window_start_s_ = reading.time_s;
  // A reading past the current window closes it (and any empty windows in between count as
  // no windows at all: a gap in the readings says nothing about the GPU).
  if (reading.time_s >= *window_start_s_ + settings_.window_s) {
    close_window();
    const double windows_passed =
        std::floor((reading.time_s - *window_start_s_) / settings_.window_s);
    *window_start_s_ += windows_passed * settings_.window_s;
    if (settled_)
      return;
  }
  ++current_.readings;
  current_.clock_sum += reading.sm_clock_mhz;
  if (reading.instant_power_w && reading.average_power_w && reading.power_limit_w) {
    ++current_.power_readings;
    current_.instant_sum += *reading.instant_power_w;
    current_.average_sum += *reading.average_power_w;
    current_.limit_sum += *reading.power_limit_w;
  }
}

void SettleDetector::close_window() {
  if (current_.readings > 0) {
    closed_.push_back(current_);
    while (static_cast<int>(closed_.size()) > settings_.windows)
      closed_.pop_front();
  }
  current_ = Window{};
  settled_ = static_cast<int>(closed_.size()) == settings_.windows && windows_agree();
}

bool SettleDetector::windows_agree() const {
  double clock_sum = 0;
  for (const Window& window : closed_)
    clock_sum += window.clock_sum / window.readings;
  const double mean_clock = clock_sum / static_cast<double>(closed_.size());
  if (mean_clock <= 0)
    return false;
  for (const Window& window : closed_) {
    const double clock = window.clock_sum / window.readings;
    if (std::abs(clock - mean_clock) > settings_.clock_band_pct / 100 * mean_clock)
      return false;
    if (window.power_readings == 0)
      continue;
    const double instant = window.instant_sum / window.power_readings;
    const double average = window.average_sum / window.power_readings;
    const double limit = window.limit_sum / window.power_readings;
    if (average < settings_.capped_share_of_limit * limit)
      continue;  // not regulated by the power limiter
    if (std::abs(instant - average) > settings_.power_tolerance_pct / 100 * average)
      return false;
  }
  return true;
}

}  // namespace gemmscope
