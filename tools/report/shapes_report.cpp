#include "tools/report/shapes_report.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "tools/report/case_selection.h"

namespace gemmscope::report {
namespace {

struct RowKey {
  int64_t index;
  Pass pass;
  std::string op;
  bool operator<(const RowKey& other) const {
    return std::tie(index, pass) < std::tie(other.index, other.pass);
  }
  bool operator==(const RowKey& other) const { return index == other.index && pass == other.pass; }
};

std::vector<RowKey> row_keys(const std::vector<const CaseResult*>& cases) {
  std::vector<RowKey> keys;
  for (const CaseResult* result : cases) {
    keys.push_back({*shapes_gemm_index(result->gemm.op), result->gemm.pass, result->gemm.op});
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// Each row's cases, so that building a row reads its own cases only: a report of 100,000
// GEMMs would otherwise scan every case for every cell.
std::map<std::pair<std::string, Pass>, std::vector<const CaseResult*>> cases_by_row(
    const std::vector<const CaseResult*>& cases) {
  std::map<std::pair<std::string, Pass>, std::vector<const CaseResult*>> rows;
  for (const CaseResult* result : cases)
    rows[{result->gemm.op, result->gemm.pass}].push_back(result);
  return rows;
}

// The row's shape: BF16's where present, otherwise the first case's.
GemmShape row_shape(const std::vector<const CaseResult*>& cases, const RowKey& key) {
  const CaseResult* chosen = nullptr;
  for (const CaseResult* result : cases) {
    if (result->gemm.op != key.op || result->gemm.pass != key.pass)
      continue;
    if (chosen == nullptr || result->gemm.precision == Precision::kBF16)
      chosen = result;
  }
  return chosen->gemm.shape;
}

ShapesRow build_row(const std::vector<const CaseResult*>& cases, const RowKey& key, Mode mode,
                    const std::vector<Precision>& columns, bool include_emulated) {
  ShapesRow row;
  row.op = key.op;
  row.pass = key.pass;
  row.shape = row_shape(cases, key);
  for (Precision precision : columns) {
    const CaseResult* result = find_case(cases, precision, key.pass, key.op, mode);
    const ReportValue& ms = row.ms[precision] = cell_value(result);
    // The rate keeps the time's marks (n/a reason, emulated, implementation).
    ReportValue rate = ms;
    if (rate.available())
      rate.number = tflops(result->gemm.shape, *ms.number);
    row.tflops[precision] = std::move(rate);
  }
  const bool has_baseline = row.ms.count(Precision::kBF16) > 0;
  const ReportValue baseline =
      has_baseline ? row.ms[Precision::kBF16] : ReportValue::na(kNoBaselineReason);
  for (Precision precision : columns) {
    row.speedup_vs_bf16[precision] =
        speedup_over(baseline, has_baseline, row.ms[precision], include_emulated);
  }
  return row;
}

}  // namespace

double tflops(const GemmShape& shape, double ms) {
  return shape.flops() / (ms * 1e9);
}

std::optional<ShapesReport> build_shapes_report(const std::vector<CaseResult>& cases,
                                                bool include_emulated) {
  const std::vector<const CaseResult*> shapes_cases = select_workload(cases, Workload::kShapes);
  if (shapes_cases.empty())
    return std::nullopt;
  const std::vector<RowKey> keys = row_keys(shapes_cases);
  const auto row_cases = cases_by_row(shapes_cases);
  ShapesReport report;
  for (Mode mode : report_modes(shapes_cases)) {
    ShapesModeReport table;
    table.mode = mode;
    table.precisions = mode_columns(shapes_cases, mode);
    for (const RowKey& key : keys) {
      table.rows.push_back(build_row(row_cases.at({key.op, key.pass}), key, mode, table.precisions,
                                     include_emulated));
    }
    report.modes.push_back(std::move(table));
  }
  return report;
}

}  // namespace gemmscope::report
