#include "tools/report/output_format.h"

#include <stdexcept>

#include "tools/report/csv_format.h"
#include "tools/report/json_format.h"
#include "tools/report/report_document.h"

namespace gemmscope::report {

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
  throw std::invalid_argument("unknown output format");
}

}  // namespace gemmscope::report
