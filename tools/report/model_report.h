#pragma once

// The tables of a model run, per mode: milliseconds per pass and op, the per-pass sums, the
// per-layer breakdown, the whole model (per layer x num_hidden_layers) and each precision's
// speedup over BF16 on the per-layer total.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/case_results.h"
#include "tools/report/report_value.h"
#include "tools/report/run_context.h"

namespace gemmscope::report {

struct ModelModeReport {
  Mode mode = Mode::kAutocast;
  std::vector<Precision> precisions;  // the columns, in display order
  // pass -> op -> precision. Every op of kModelOps and every column has an entry.
  std::map<Pass, std::map<std::string, PrecisionValues>> per_op_ms;
  // pass -> op -> the GEMM's MxKxN (from BF16 where present), absent when no case has it.
  std::map<Pass, std::map<std::string, std::optional<GemmShape>>> op_shapes;
  std::map<Pass, PrecisionValues> per_pass_ms;
  PrecisionValues fprop_dgrad_ms;
  PrecisionValues per_layer_ms;
  PrecisionValues model_ms;
  PrecisionValues speedup_vs_bf16;  // BF16 itself is 1 when its total is known
};

struct ModelReport {
  LayerCount layers;
  std::vector<ModelModeReport> modes;
};

// nullopt when the input has no model-run cases.
std::optional<ModelReport> build_model_report(const std::vector<CaseResult>& cases,
                                              const RunContext& context, bool include_emulated);

}  // namespace gemmscope::report
