#pragma once
// --timeline=FILE: every NVML reading and every timed sample of a run, as CSV, to see how each
// group reached its steady state and whether anything moved while it was sampled. Columns:
//   event,time_s,group,case,seconds,sm_clock_mhz,instant_power_w,average_power_w,temperature_c,
//   memory_clock_mhz,clock_event_reasons
// event is "reading" (NVML), "sample" (one timed iteration of `case`, `seconds` its GPU time),
// "settled" or "unsettled" (the end of a group's settling, `seconds` after it began). The
// first rows are the GPU warm-up's readings, group "warmup". clock_event_reasons is NVML's
// bitmask in hex (0x4: SW power cap; clock_monitor.h names the bits that slow a GPU down).
// Columns a row does not have, or NVML did not give, are empty.
// time_s is on one monotonic clock for all rows.

#include <fstream>
#include <string>
#include <vector>

#include "bench/timing/settle_detector.h"
#include "bench/timing/steady_state_run.h"

namespace gemmscope {

class Timeline {
 public:
  // Throws std::runtime_error naming the file when it cannot be written.
  explicit Timeline(const std::string& path);

  void write_group(const std::string& group, const std::vector<std::string>& case_names,
                   const SettleResult& settle, const GroupSamples& samples,
                   const std::vector<PowerReading>& readings);

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace gemmscope
