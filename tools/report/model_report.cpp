#include "tools/report/model_report.h"

#include "tools/report/case_selection.h"

namespace gemmscope::report {
namespace {

ReportValue cell_value(const CaseResult* result) {
  if (result == nullptr)
    return ReportValue::na(kMissingReason);
  if (!result->ms)
    return ReportValue::na(result->na_reason);
  return ReportValue::of(*result->ms, result->emulated);
}

std::optional<GemmShape> op_shape(const std::vector<const CaseResult*>& cases,
                                  const std::vector<Precision>& columns, Pass pass,
                                  const std::string& op, Mode mode) {
  for (Precision precision : columns) {  // BF16 first when present
    if (const CaseResult* result = find_case(cases, precision, pass, op, mode)) {
      return result->gemm.shape;
    }
  }
  return std::nullopt;
}

ModelModeReport build_mode(const std::vector<const CaseResult*>& cases, Mode mode,
                           const LayerCount& layers, bool include_emulated) {
  ModelModeReport report;
  report.mode = mode;
  report.precisions = mode_columns(cases, mode);
  for (Pass pass : kPasses) {
    for (std::string_view op_name : kModelOps) {
      const std::string op(op_name);
      report.op_shapes[pass][op] = op_shape(cases, report.precisions, pass, op, mode);
      for (Precision precision : report.precisions) {
        report.per_op_ms[pass][op][precision] =
            cell_value(find_case(cases, precision, pass, op, mode));
      }
    }
  }
  for (Precision precision : report.precisions) {
    for (Pass pass : kPasses) {
      std::vector<ReportValue> ops;
      for (std::string_view op : kModelOps) {
        ops.push_back(report.per_op_ms[pass][std::string(op)][precision]);
      }
      report.per_pass_ms[pass][precision] = sum(ops);
    }
    const ReportValue fprop = report.per_pass_ms[Pass::kFprop][precision];
    const ReportValue dgrad = report.per_pass_ms[Pass::kDgrad][precision];
    const ReportValue wgrad = report.per_pass_ms[Pass::kWgrad][precision];
    report.fprop_dgrad_ms[precision] = sum({fprop, dgrad});
    report.per_layer_ms[precision] = sum({fprop, dgrad, wgrad});
    const ReportValue& per_layer = report.per_layer_ms[precision];
    report.model_ms[precision] = !per_layer.available() ? per_layer
                                 : layers.layers
                                     ? scaled(per_layer, static_cast<double>(*layers.layers))
                                     : ReportValue::na(layers.na_reason);
  }
  const bool has_baseline = report.per_layer_ms.count(Precision::kBF16) > 0;
  const ReportValue baseline =
      has_baseline ? report.per_layer_ms[Precision::kBF16] : ReportValue::na(kNoBaselineReason);
  for (Precision precision : report.precisions) {
    report.speedup_vs_bf16[precision] =
        speedup_over(baseline, has_baseline, report.per_layer_ms[precision], include_emulated);
  }
  return report;
}

}  // namespace

std::optional<ModelReport> build_model_report(const std::vector<CaseResult>& cases,
                                              const RunContext& context, bool include_emulated) {
  const std::vector<const CaseResult*> model_cases = select_workload(cases, Workload::kModel);
  if (model_cases.empty())
    return std::nullopt;
  ModelReport report;
  report.layers = layer_count(context);
  for (Mode mode : report_modes(model_cases)) {
    report.modes.push_back(build_mode(model_cases, mode, report.layers, include_emulated));
  }
  return report;
}

}  // namespace gemmscope::report
