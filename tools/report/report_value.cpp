#include "tools/report/report_value.h"

namespace gemmscope::report {

ReportValue ReportValue::of(double number, bool emulated) {
  ReportValue value;
  value.number = number;
  value.emulated = emulated;
  return value;
}

ReportValue ReportValue::na(std::string reason) {
  ReportValue value;
  value.na_reason = std::move(reason);
  return value;
}

ReportValue sum(const std::vector<ReportValue>& parts) {
  double total = 0;
  bool emulated = false;
  for (const ReportValue& part : parts) {
    if (!part.available())
      return ReportValue::na(kIncompleteReason);
    total += *part.number;
    emulated = emulated || part.emulated;
  }
  return ReportValue::of(total, emulated);
}

ReportValue scaled(const ReportValue& value, double factor) {
  if (!value.available())
    return value;
  return ReportValue::of(*value.number * factor, value.emulated);
}

ReportValue speedup_over(const ReportValue& baseline, bool has_baseline, const ReportValue& value,
                         bool include_emulated) {
  if (!has_baseline)
    return ReportValue::na(kNoBaselineReason);
  if (!baseline.available())
    return ReportValue::na("the BF16 baseline is n/a");
  if (!value.available())
    return value;
  if (value.emulated && !include_emulated)
    return ReportValue::na(kEmulatedReason);
  return ReportValue::of(*baseline.number / *value.number, value.emulated);
}

}  // namespace gemmscope::report
