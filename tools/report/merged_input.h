#pragma once

// Several benchmark files read as one run: a later file's case replaces an earlier one with
// the same {Precision}/{Pass}/{op}/{mode}, and its context values win. Files that disagree on
// which run they are (device, model, layers per op, ...) are merged all the same, with a notice
// that says so.

#include <cstddef>
#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
#include "tools/report/case_results.h"
#include "tools/report/run_context.h"

namespace gemmscope::report {

struct MergedInput {
  std::vector<std::string> files;
  RunContext context;
  std::vector<CaseResult> cases;  // one per GemmCase::key()
  size_t quantize_cases = 0;      // distinct quantization case names, ignored by the report
  std::vector<UnparsedEntry> unparsed;
  std::vector<std::string> notices;  // replaced cases, files that disagree on the run
};

MergedInput merge_files(const std::vector<BenchmarkFile>& files);

}  // namespace gemmscope::report
