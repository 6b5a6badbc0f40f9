#include "tools/report/report_value.h"

#include <utility>

namespace gemmscope::report {

ReportValue ReportValue::of(double number, bool emulated, Implementations implementations) {
  ReportValue value;
  value.number = number;
  value.emulated = emulated;
  value.implementations = std::move(implementations);
  return value;
}

ReportValue ReportValue::na(std::string reason) {
  ReportValue value;
  value.na_reason = std::move(reason);
  return value;
}

ReportValue sum(const std::vector<ReportValue>& parts) {
  ReportValue total = ReportValue::of(0);
  for (const ReportValue& part : parts) {
    if (!part.available())
      return ReportValue::na(kIncompleteReason);
    *total.number += *part.number;
    total.emulated = total.emulated || part.emulated;
    total.implementations.insert(part.implementations.begin(), part.implementations.end());
  }
  return total;
}

ReportValue scaled(const ReportValue& value, double factor) {
  ReportValue product = value;
  if (product.available())
    *product.number *= factor;
  return product;
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
  ReportValue speedup = value;
  speedup.number = *baseline.number / *value.number;
  return speedup;
}

}  // namespace gemmscope::report
