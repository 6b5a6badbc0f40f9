#pragma once

// Everything gemm_report says about its input, before it is formatted.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
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
  std::optional<ModelReport> model;    // model-run cases (ops of kLayerOps: qkv, attn_out, ...)
  std::optional<ShapesReport> shapes;  // --shapes cases (gemm0, gemm1, ...)
};

Report build_report(MergedInput input, const ReportOptions& options);

// What gemm_report does between reading its files and formatting: merges them, passes each
// input warning to `warn`, and builds the report. Throws std::runtime_error when the files
// hold no gemmscope GEMM case.
Report report_files(const std::vector<BenchmarkFile>& files, const ReportOptions& options,
                    const std::function<void(const std::string&)>& warn);

// What the user should know about the input, one line each: replaced cases, files that
// disagree, and one line for all entries that could not be understood.
std::vector<std::string> input_warnings(const MergedInput& input);

}  // namespace gemmscope::report
