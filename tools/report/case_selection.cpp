#include "tools/report/case_selection.h"

#include <algorithm>

namespace gemmscope::report {

std::vector<const CaseResult*> select_workload(const std::vector<CaseResult>& cases,
                                               Workload workload) {
  std::vector<const CaseResult*> selected;
  for (const CaseResult& result : cases) {
    const bool model = is_model_op(result.gemm.op);
    if (model == (workload == Workload::kModel))
      selected.push_back(&result);
  }
  return selected;
}

std::vector<Mode> report_modes(const std::vector<const CaseResult*>& cases) {
  std::vector<Mode> modes;
  for (Mode mode : kQuantizedModes) {
    const bool present = std::any_of(cases.begin(), cases.end(),
                                     [mode](const CaseResult* c) { return c->gemm.mode == mode; });
    if (present)
      modes.push_back(mode);
  }
  if (modes.empty())
    modes.push_back(Mode::kNative);
  return modes;
}

std::vector<Precision> mode_columns(const std::vector<const CaseResult*>& cases, Mode mode) {
  std::vector<Precision> columns;
  for (Precision precision : kPrecisions) {
    const Mode wanted = precision == Precision::kBF16 ? Mode::kNative : mode;
    const bool present = std::any_of(cases.begin(), cases.end(), [&](const CaseResult* c) {
      return c->gemm.precision == precision && c->gemm.mode == wanted;
    });
    if (present)
      columns.push_back(precision);
  }
  return columns;
}

const CaseResult* find_case(const std::vector<const CaseResult*>& cases, Precision precision,
                            Pass pass, const std::string& op, Mode mode) {
  const Mode wanted = precision == Precision::kBF16 ? Mode::kNative : mode;
  const auto found = std::find_if(cases.begin(), cases.end(), [&](const CaseResult* c) {
    return c->gemm.precision == precision && c->gemm.pass == pass && c->gemm.op == op &&
           c->gemm.mode == wanted;
  });
  return found == cases.end() ? nullptr : *found;
}

ReportValue cell_value(const CaseResult* result) {
  if (result == nullptr)
    return ReportValue::na(kMissingReason);
  if (!result->ms)
    return ReportValue::na(result->na_reason);
  return ReportValue::of(*result->ms, result->emulated, {result->implementation});
}

}  // namespace gemmscope::report
