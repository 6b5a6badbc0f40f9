#include "bench/timing/timeline.h"

#include <cstdio>
#include <stdexcept>

namespace gemmscope {
namespace {

template <typename T>
std::string optional_text(const std::optional<T>& value) {
  return value ? std::to_string(*value) : "";
}

std::string hex_text(unsigned long long bits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", bits);
  return text;
}

// The columns after `seconds`, empty, for rows that are not NVML readings.
constexpr const char* kNoReading = ",,,,,,";

}  // namespace

Timeline::Timeline(const std::string& path) : path_(path), out_(path) {
  if (!out_)
    throw std::runtime_error("--timeline=" + path + ": cannot write the file");
  out_ << "event,time_s,group,case,seconds,sm_clock_mhz,instant_power_w,average_power_w,"
          "temperature_c,memory_clock_mhz,clock_event_reasons\n";
}

void Timeline::write_group(const std::string& group, const std::vector<std::string>& case_names,
                           const SettleResult& settle, const GroupSamples& samples,
                           const std::vector<PowerReading>& readings) {
  out_.precision(9);
  for (const PowerReading& r : readings) {
    out_ << "reading," << r.time_s << "," << group << ",,," << r.sm_clock_mhz << ","
         << optional_text(r.instant_power_w) << "," << optional_text(r.average_power_w) << ","
         << optional_text(r.temperature_c) << "," << optional_text(r.memory_clock_mhz) << ","
         << hex_text(r.clock_event_reasons) << "\n";
  }
  if (settle.attempted) {
    out_ << (settle.settled ? "settled," : "unsettled,") << settle.end_s << "," << group << ",,"
         << settle.seconds << kNoReading << "\n";
  }
  for (size_t i = 0; i < samples.members.size() && i < case_names.size(); ++i) {
    const MemberSamples& member = samples.members[i];
    for (size_t j = 0; j < member.seconds.size() && j < member.end_times_s.size(); ++j) {
      out_ << "sample," << member.end_times_s[j] << "," << group << "," << case_names[i] << ","
           << member.seconds[j] << kNoReading << "\n";
    }
  }
  out_.flush();
  if (!out_)
    throw std::runtime_error("--timeline=" + path_ + ": writing failed");
}

}  // namespace gemmscope
