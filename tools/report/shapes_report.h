#pragma once

// The table of a --shapes run, per mode: one row per GEMM with each precision's time,
// TFLOP/s and speedup over BF16.

#include <optional>
#include <string>
#include <vector>

#include "tools/report/case_results.h"
#include "tools/report/report_value.h"

namespace gemmscope::report {

struct ShapesRow {
  std::string op;  // gemm{i}
  Pass pass = Pass::kFprop;
  GemmShape shape;
  PrecisionValues ms;
  PrecisionValues tflops;  // 2*M*K*N over the time
  PrecisionValues speedup_vs_bf16;
};

struct ShapesModeReport {
  Mode mode = Mode::kAutocast;
  std::vector<Precision> precisions;  // the columns, in display order
  std::vector<ShapesRow> rows;        // by GEMM position, then pass
};

struct ShapesReport {
  std::vector<ShapesModeReport> modes;
};

// nullopt when the input has no --shapes cases.
std::optional<ShapesReport> build_shapes_report(const std::vector<CaseResult>& cases,
                                                bool include_emulated);

// TFLOP/s of one GEMM of `shape` that took `ms` milliseconds.
double tflops(const GemmShape& shape, double ms);

}  // namespace gemmscope::report
