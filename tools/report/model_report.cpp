#include "tools/report/model_report.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "tools/report/case_selection.h"

namespace gemmscope::report {
namespace {

using Ops = std::vector<std::string>;

// The case an op's shape (and groups) is shown from: BF16's when present.
const CaseResult* shape_source(const std::vector<const CaseResult*>& cases,
                               const std::vector<Precision>& columns, Pass pass,
                               const std::string& op, Mode mode) {
  for (Precision precision : columns) {  // BF16 first when present
    if (const CaseResult* result = find_case(cases, precision, pass, op, mode))
      return result;
  }
  return nullptr;
}

// The sums of one precision's column over any set of ops.
class ColumnSums {
 public:
  ColumnSums(const ModelModeReport& report, Precision precision)
      : report_(report), precision_(precision) {}

  ReportValue pass(Pass pass, const Ops& ops) const {
    std::vector<ReportValue> parts;
    for (const std::string& op : ops)
      parts.push_back(report_.per_op_ms.at(pass).at(op).at(precision_));
    return sum(parts);
  }
  ReportValue fprop_dgrad(const Ops& ops) const {
    return sum({pass(Pass::kFprop, ops), pass(Pass::kDgrad, ops)});
  }
  ReportValue layer(const Ops& ops) const {
    return sum({pass(Pass::kFprop, ops), pass(Pass::kDgrad, ops), pass(Pass::kWgrad, ops)});
  }

 private:
  const ModelModeReport& report_;
  Precision precision_;
};

// The whole model: the sum over ops of `of_ops` x the layers that hold them. Ops that share a
// count are summed first, so that a model whose ops all have L layers is exactly one layer x L.
ReportValue times_layers(const OpLayers& layers,
                         const std::function<ReportValue(const Ops&)>& of_ops) {
  if (layers.per_op.empty()) {
    const ReportValue all = of_ops(layers.ops);
    return all.available() ? ReportValue::na(layers.na_reason) : all;
  }
  std::vector<std::pair<int64_t, Ops>> by_count;  // in the order of each count's first op
  for (const std::string& op : layers.ops) {
    const int64_t count = layers.per_op.at(op);
    auto group = std::find_if(by_count.begin(), by_count.end(),
                              [count](const auto& g) { return g.first == count; });
    if (group == by_count.end())
      group = by_count.insert(by_count.end(), {count, {}});
    group->second.push_back(op);
  }
  std::vector<ReportValue> parts;
  for (const auto& [count, ops] : by_count)
    parts.push_back(scaled(of_ops(ops), static_cast<double>(count)));
  return sum(parts);
}

// One layer of `kind`: the attention ops, which every layer has, and the kind's own.
Ops ops_of_kind(const OpLayers& layers, LayerKind kind) {
  Ops ops;
  for (const std::string& op : layers.ops) {
    const std::optional<LayerKind> of = layer_kind_of(op);
    if (!of || *of == kind)
      ops.push_back(op);
  }
  return ops;
}

ModelModeReport build_mode(const std::vector<const CaseResult*>& cases, Mode mode,
                           const OpLayers& layers, bool include_emulated) {
  ModelModeReport report;
  report.mode = mode;
  report.precisions = mode_columns(cases, mode);
  for (Pass pass : kPasses) {
    for (const std::string& op : layers.ops) {
      const CaseResult* source = shape_source(cases, report.precisions, pass, op, mode);
      report.op_shapes[pass][op] =
          source ? std::optional<GemmShape>(source->gemm.shape) : std::nullopt;
      report.op_groups[pass][op] = source ? source->gemm.groups : std::nullopt;
      for (Precision precision : report.precisions) {
        report.per_op_ms[pass][op][precision] =
            cell_value(find_case(cases, precision, pass, op, mode));
      }
    }
  }
  for (Precision precision : report.precisions) {
    const ColumnSums sums(report, precision);
    if (layers.mixed) {
      for (Pass pass : kPasses)
        report.per_pass_ms[pass][precision] = ReportValue::na(kLayerKindsReason);
      report.fprop_dgrad_ms[precision] = ReportValue::na(kLayerKindsReason);
      report.per_layer_ms[precision] = ReportValue::na(kLayerKindsReason);
      for (LayerKind kind : layers.kinds)
        report.per_kind_ms[kind][precision] = sums.layer(ops_of_kind(layers, kind));
    } else {
      for (Pass pass : kPasses)
        report.per_pass_ms[pass][precision] = sums.pass(pass, layers.ops);
      report.fprop_dgrad_ms[precision] = sums.fprop_dgrad(layers.ops);
      report.per_layer_ms[precision] = sums.layer(layers.ops);
    }
    for (Pass pass : kPasses) {
      report.model_pass_ms[pass][precision] =
          times_layers(layers, [&](const Ops& ops) { return sums.pass(pass, ops); });
    }
    report.model_fprop_dgrad_ms[precision] =
        times_layers(layers, [&](const Ops& ops) { return sums.fprop_dgrad(ops); });
    report.model_ms[precision] =
        times_layers(layers, [&](const Ops& ops) { return sums.layer(ops); });
  }
  const PrecisionValues& totals = layers.mixed ? report.model_ms : report.per_layer_ms;
  const bool has_baseline = totals.count(Precision::kBF16) > 0;
  const ReportValue baseline =
      has_baseline ? totals.at(Precision::kBF16) : ReportValue::na(kNoBaselineReason);
  for (Precision precision : report.precisions) {
    report.speedup_vs_bf16[precision] =
        speedup_over(baseline, has_baseline, totals.at(precision), include_emulated);
  }
  return report;
}

}  // namespace

std::optional<ModelReport> build_model_report(const std::vector<CaseResult>& cases,
                                              const RunContext& context, bool include_emulated) {
  const std::vector<const CaseResult*> model_cases = select_workload(cases, Workload::kModel);
  if (model_cases.empty())
    return std::nullopt;
  std::set<std::string> present;
  for (const CaseResult* result : model_cases)
    present.insert(result->gemm.op);
  ModelReport report;
  report.layers = layer_count(context);
  report.op_layers = op_layers(context, Ops(present.begin(), present.end()));
  for (Mode mode : report_modes(model_cases)) {
    report.modes.push_back(build_mode(model_cases, mode, report.op_layers, include_emulated));
  }
  return report;
}

}  // namespace gemmscope::report
