#pragma once

// The report in the format asked for on the command line (--format).

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

enum class OutputFormat { kText, kMarkdown, kCsv, kJson };

std::string format_report(const Report& report, OutputFormat format);

}  // namespace gemmscope::report
