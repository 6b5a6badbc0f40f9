#include "tools/report/report.h"

#include <stdexcept>

namespace gemmscope::report {

Report build_report(MergedInput input, const ReportOptions& options) {
  Report report;
  report.options = options;
  report.model = build_model_report(input.cases, input.context, options.include_emulated);
  report.shapes = build_shapes_report(input.cases, options.include_emulated);
  report.input = std::move(input);
  return report;
}

Report report_files(const std::vector<BenchmarkFile>& files, const ReportOptions& options,
                    const std::function<void(const std::string&)>& warn) {
  MergedInput input = merge_files(files);
  for (const std::string& warning : input_warnings(input))
    warn(warning);
  if (input.cases.empty()) {
    throw std::runtime_error(
        "no gemmscope GEMM cases in the input (names like "
        "BF16/Fprop/qkv/native/M:8192/K:4096/N:12288/manual_time)");
  }
  return build_report(std::move(input), options);
}

std::vector<std::string> input_warnings(const MergedInput& input) {
  std::vector<std::string> warnings = input.notices;
  if (!input.unparsed.empty()) {
    constexpr size_t kListed = 3;
    const size_t count = input.unparsed.size();
    std::string line = std::to_string(count) +
                       (count == 1 ? " benchmark entry" : " benchmark entries") +
                       " not understood and left out: ";
    for (size_t i = 0; i < count && i < kListed; ++i) {
      line += (i > 0 ? "; " : "") + input.unparsed[i].name + " (" + input.unparsed[i].problem + ")";
    }
    if (count > kListed)
      line += "; and " + std::to_string(count - kListed) + " more";
    warnings.push_back(line);
  }
  return warnings;
}

}  // namespace gemmscope::report
