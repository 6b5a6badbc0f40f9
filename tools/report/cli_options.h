#pragma once

// gemm_report's command line:
//   gemm_report [--format=text|markdown|csv|json] [--svg=FILE] [--include-emulated] FILE...

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/report/output_format.h"

namespace gemmscope::report {

struct CliOptions {
  OutputFormat format = OutputFormat::kText;
  std::optional<std::string> svg_path;
  bool include_emulated = false;
  bool help = false;
  std::vector<std::string> files;
};

// A command line gemm_report cannot run: the message says what is wrong.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// args excludes the program name. Throws UsageError; --help needs no files.
CliOptions parse_cli(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace gemmscope::report
