#pragma once

// From the entries of one benchmark file to one result per gemmscope GEMM case: the median
// over repetitions, converted to milliseconds, or n/a with the reason.

#include <optional>
#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
#include "tools/report/case_implementation.h"
#include "tools/report/case_name.h"

namespace gemmscope::report {

struct CaseResult {
  GemmCase gemm;
  std::optional<double> ms;  // absent: the case was skipped or failed (see na_reason)
  std::string na_reason;
  bool emulated = false;  // counter emulated=1 or a label saying "emulated"
  Implementation implementation = Implementation::kUnknown;  // from the label
  std::string source;                                        // the file it came from
};

struct UnparsedEntry {
  std::string name;
  std::string problem;
};

struct FileCases {
  std::vector<CaseResult> cases;            // one per GEMM case, in the file's order
  std::vector<std::string> quantize_names;  // quantization cases: recognised, not reported
  std::vector<UnparsedEntry> unparsed;
  std::vector<std::string> notices;  // cases that appear more than once without repetitions
};

// Each run_name counts once: its "median" aggregate when repetitions were run, otherwise its
// iteration row (the median of them, should there be several without aggregates).
FileCases reduce_file(const BenchmarkFile& file);

}  // namespace gemmscope::report
