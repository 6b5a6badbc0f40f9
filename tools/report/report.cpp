#include "tools/report/report.h"

namespace gemmscope::report {

Report build_report(MergedInput input, const ReportOptions& options) {
  Report report;
  report.options = options;
  report.model = build_model_report(input.cases, input.context, options.include_emulated);
  report.shapes = build_shapes_report(input.cases, options.include_emulated);
  report.input = std::move(input);
  return report;
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
