#pragma once

// Everything gemm_report says about its input, before it is formatted.

#include <optional>
#include <string>
#include <vector>

#include "tools/report/merged_input.h"
#include "tools/report/model_report.h"
#include "tools/report/shapes_report.h"

namespace gemmscope::report {

struct ReportOptions {
  bool include_emulated = false;  // count emulated GEMMs in speedups
};

struct Report {
  MergedInput input;
  ReportOptions options;
  std::optional<ModelReport> model;    // model-run cases (qkv, attn_out, mlp_up, mlp_down)
  std::optional<ShapesReport> shapes;  // --shapes cases (gemm0, gemm1, ...)
};

Report build_report(MergedInput input, const ReportOptions& options);

// What the user should know about the input, one line each: replaced cases, files that
// disagree, and one line for all entries that could not be understood.
std::vector<std::string> input_warnings(const MergedInput& input);

}  // namespace gemmscope::report
