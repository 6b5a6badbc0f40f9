// gemm_report: gemm_bench's Google Benchmark JSON -> per-layer and per-model GEMM times,
// speedups over BF16, and a chart. See report/cli_options.cpp for the command line.

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
#include "tools/report/cli_options.h"
#include "tools/report/output_format.h"
#include "tools/report/report.h"
#include "tools/report/svg_chart.h"

namespace {

using namespace gemmscope::report;

constexpr int kExitInputError = 1;
constexpr int kExitUsage = 2;

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out)
    throw std::runtime_error(path + ": cannot write the file");
}

int run(const CliOptions& options) {
  std::vector<BenchmarkFile> files;
  for (const std::string& path : options.files)
    files.push_back(load_benchmark_file(path));
  const Report report = report_files(
      files, {options.include_emulated},
      [](const std::string& warning) { std::cerr << "gemm_report: warning: " << warning << "\n"; });
  std::cout << format_report(report, options.format) << std::flush;
  if (options.svg_path)
    write_file(*options.svg_path, render_svg_chart(report));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CliOptions options;
  try {
    options = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& error) {
    std::cerr << "gemm_report: " << error.what() << "\n\n" << usage_text();
    return kExitUsage;
  }
  if (options.help) {
    std::cout << usage_text();
    return 0;
  }
  try {
    return run(options);
  } catch (const std::exception& error) {
    std::cerr << "gemm_report: error: " << error.what() << "\n";
    return kExitInputError;
  }
}
