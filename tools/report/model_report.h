#pragma once

// The tables of a model run, per mode: milliseconds per pass and op, the per-pass sums, the
// per-layer breakdown, the whole model (the sum over ops of time x the layers that hold the op)
// and each precision's speedup over BF16 on the model total. When the model's layers differ in
// kind (a mixture-of-experts model with dense layers) there is no one layer: the breakdown is
// then one layer of each kind, and the passes of the whole model.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/case_results.h"
#include "tools/report/op_layers.h"
#include "tools/report/report_value.h"
#include "tools/report/run_context.h"

namespace gemmscope::report {

// Why a one-layer total is n/a for a model whose layers differ in kind.
inline constexpr const char* kLayerKindsReason =
    "the model's layers differ in kind (dense and MoE): see the total of each kind";

struct ModelModeReport {
  Mode mode = Mode::kAutocast;
  std::vector<Precision> precisions;  // the columns, in display order
  // pass -> op -> precision. Every op of OpLayers::ops and every column has an entry.
  std::map<Pass, std::map<std::string, PrecisionValues>> per_op_ms;
  // pass -> op -> the GEMM's MxKxN (from BF16 where present), absent when no case has it.
  std::map<Pass, std::map<std::string, std::optional<GemmShape>>> op_shapes;
  // pass -> op -> G of the case op_shapes comes from; absent for ops that are not grouped.
  std::map<Pass, std::map<std::string, std::optional<int64_t>>> op_groups;
  // One layer (the sum over ops); n/a (kLayerKindsReason) when the layers differ in kind.
  std::map<Pass, PrecisionValues> per_pass_ms;
  PrecisionValues fprop_dgrad_ms;
  PrecisionValues per_layer_ms;
  // One layer of each kind the model has (attention and the kind's ops), when its layers differ
  // in kind; empty otherwise.
  std::map<LayerKind, PrecisionValues> per_kind_ms;
  // The whole model: per pass, the sum over ops of time x layers.
  std::map<Pass, PrecisionValues> model_pass_ms;
  PrecisionValues model_fprop_dgrad_ms;
  PrecisionValues model_ms;
  // BF16 itself is 1 when its total is known. On the model total; for a model whose ops all
  // have one layer count that is the per-layer ratio, which is what it is computed from, so that
  // it is known even when the count is not.
  PrecisionValues speedup_vs_bf16;
};

struct ModelReport {
  LayerCount layers;   // num_hidden_layers
  OpLayers op_layers;  // the run's ops and the layers that hold each
  std::vector<ModelModeReport> modes;
};

// nullopt when the input has no model-run cases.
std::optional<ModelReport> build_model_report(const std::vector<CaseResult>& cases,
                                              const RunContext& context, bool include_emulated);

}  // namespace gemmscope::report
