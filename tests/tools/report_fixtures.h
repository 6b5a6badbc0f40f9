#pragma once

// Hand-made Google Benchmark JSON files with known times (see fixtures/README.md), and the
// report built from them the way gemm_report builds it.

#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
#include "tools/report/merged_input.h"
#include "tools/report/report.h"

namespace gemmscope::report::testing {

inline std::string fixture_path(const std::string& name) {
  return std::string(REPORT_FIXTURES_DIR) + "/" + name;
}

// Loads the fixtures in order (paths kept as their bare names, so that reports and messages
// do not depend on where the checkout is) and builds the report.
inline Report report_of(const std::vector<std::string>& names, bool include_emulated = false) {
  std::vector<BenchmarkFile> files;
  for (const std::string& name : names) {
    BenchmarkFile file = load_benchmark_file(fixture_path(name));
    file.path = name;
    files.push_back(std::move(file));
  }
  return build_report(merge_files(files), ReportOptions{include_emulated});
}

}  // namespace gemmscope::report::testing
