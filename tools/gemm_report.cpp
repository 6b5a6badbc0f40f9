// gemm_report: gemm_bench's Google Benchmark JSON -> per-layer and per-model GEMM times,
// speedups over BF16, and a chart. See report/cli_options.cpp for the command line.

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/report/benchmark_file.h"
#include "tools/report/cli_options.h"
#include "tools/report/csv_format.h"
#include "tools/report/json_format.h"
#include "tools/report/merged_input.h"
#include "tools/report/report.h"
#include "tools/report/report_document.h"
#include "tools/report/svg_chart.h"

namespace {

using namespace gemmscope::report;

constexpr int kExitInputError = 1;
constexpr int kExitUsage = 2;

std::string format_report(const Report& report, OutputFormat format) {
  switch (format) {
    case OutputFormat::kText:
      return render_text(build_document(report));
    case OutputFormat::kMarkdown:
      return render_markdown(build_document(report));
    case OutputFormat::kCsv:
      return format_csv(report);
    case OutputFormat::kJson:
      return format_json(report);
  }
  return "";
}

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
  MergedInput input = merge_files(files);
  for (const std::string& warning : input_warnings(input)) {
    std::cerr << "gemm_report: warning: " << warning << "\n";
  }
  if (input.cases.empty()) {
    throw std::runtime_error(
        "no gemmscope GEMM cases in the input (names like "
        "BF16/Fprop/qkv/native/M:8192/K:4096/N:12288/manual_time)");
  }
  const Report report = build_report(std::move(input), {options.include_emulated});
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
