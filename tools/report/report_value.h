#pragma once

// A number shown in the report, or n/a with the reason, and the arithmetic that keeps n/a
// honest: a total with any n/a part is n/a, never a partial sum that looks complete. The marks a
// value carries (emulated, the implementations that ran it) follow it into totals and speedups.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/case_implementation.h"
#include "tools/report/case_tokens.h"

namespace gemmscope::report {

// Reasons shared by many values, so that the report can state each of them once.
inline constexpr const char* kMissingReason = "missing from the input";
inline constexpr const char* kIncompleteReason = "total left out: a case it adds up is n/a";
inline constexpr const char* kNoBaselineReason = "no BF16 baseline in the input";
inline constexpr const char* kEmulatedReason =
    "emulated GEMM, left out of speedups (--include-emulated compares it)";

struct ReportValue {
  std::optional<double> number;
  std::string na_reason;  // set when number is absent
  bool emulated = false;  // the value includes an emulated GEMM
  // What ran the GEMMs the value comes from; empty when it is n/a.
  Implementations implementations;

  static ReportValue of(double number, bool emulated = false, Implementations implementations = {});
  static ReportValue na(std::string reason);
  bool available() const { return number.has_value(); }
};

// n/a (kIncompleteReason) when any part is n/a; emulated when any part is; the implementations
// of all parts.
ReportValue sum(const std::vector<ReportValue>& parts);

// value * factor, keeping n/a and the marks.
ReportValue scaled(const ReportValue& value, double factor);

// One value per precision column of a table.
using PrecisionValues = std::map<Precision, ReportValue>;

// baseline / value: how many times faster than BF16 `value` is. `has_baseline` says whether
// the input had BF16 at all (for the reason when it is n/a).
ReportValue speedup_over(const ReportValue& baseline, bool has_baseline, const ReportValue& value,
                         bool include_emulated);

}  // namespace gemmscope::report
