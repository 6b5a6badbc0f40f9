// Fuzzes gemm_report's whole input path, as its main runs it: JSON bytes -> benchmark file ->
// report -> text, Markdown, CSV, JSON and SVG. Bad input must be refused with the exceptions
// main turns into exit status 1; what is written must be JSON and well-formed XML.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_check.h"
#include "tests/tools/xml_well_formed.h"
#include "tools/report/benchmark_file.h"
#include "tools/report/output_format.h"
#include "tools/report/report.h"
#include "tools/report/svg_chart.h"

using gemmscope::fuzz::check;
using namespace gemmscope::report;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Report report;
  try {
    const BenchmarkFile file = parse_benchmark_json(text, "fuzz.json");
    report = report_files({file}, {size % 2 == 1}, [](const std::string&) {});
  } catch (const std::runtime_error&) {
    return 0;
  }
  for (OutputFormat format :
       {OutputFormat::kText, OutputFormat::kMarkdown, OutputFormat::kCsv, OutputFormat::kJson}) {
    const std::string output = format_report(report, format);
    check(!output.empty(), "every format writes something");
    if (format == OutputFormat::kJson)
      check(nlohmann::json::accept(output), "--format=json writes JSON");
  }
  try {
    const std::string svg = render_svg_chart(report);
    const std::string problem = testing::xml_well_formedness_error(svg);
    check(problem.empty(), "the chart is well-formed XML: " + problem);
  } catch (const std::invalid_argument&) {
    // No model-run case to draw; main reports it the same way.
  }
  return 0;
}
