#include "tools/report/cli_options.h"

namespace gemmscope::report {
namespace {

OutputFormat parse_format(const std::string& value) {
  if (value == "text")
    return OutputFormat::kText;
  if (value == "markdown")
    return OutputFormat::kMarkdown;
  if (value == "csv")
    return OutputFormat::kCsv;
  if (value == "json")
    return OutputFormat::kJson;
  throw UsageError("unknown --format '" + value + "' (expected text, markdown, csv or json)");
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions options;
  bool only_files = false;  // after "--"
  for (const std::string& arg : args) {
    if (only_files || !starts_with(arg, "-")) {
      options.files.push_back(arg);
    } else if (arg == "--") {
      only_files = true;
    } else if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--include-emulated") {
      options.include_emulated = true;
    } else if (starts_with(arg, "--format=")) {
      options.format = parse_format(arg.substr(9));
    } else if (starts_with(arg, "--svg=")) {
      if (arg.size() == 6)
        throw UsageError("--svg needs a file name: --svg=FILE");
      options.svg_path = arg.substr(6);
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (!options.help && options.files.empty()) {
    throw UsageError("no input file (give one or more Google Benchmark JSON files)");
  }
  return options;
}

std::string usage_text() {
  return "usage: gemm_report [--format=text|markdown|csv|json] [--svg=FILE] [--include-emulated]\n"
         "                   FILE...\n"
         "\n"
         "Turns gemm_bench's Google Benchmark JSON (--benchmark_out=FILE\n"
         "--benchmark_out_format=json) into per-pass, per-layer and whole-model GEMM times and\n"
         "each recipe's speedup over BF16, per mode (step, autocast, prequant). A model's time is\n"
         "the sum over its ops of time x the layers holding the op (the run's op_layers; older\n"
         "runs: num_hidden_layers); a mixture-of-experts model with dense layers gets the time of\n"
         "one dense and one MoE layer instead of one per-layer time.\n"
         "\n"
         "  FILE...              one or more JSON files; a later file's case replaces an\n"
         "                       earlier one with the same name\n"
         "  --format=FORMAT      text (default), markdown, csv or json, on standard output\n"
         "  --svg=FILE           also write a stacked-bar chart of the per-layer times (of\n"
         "                       the whole model when it has dense and MoE layers)\n"
         "  --include-emulated   count emulated GEMMs (MXFP8/NVFP4 without their tensor cores)\n"
         "                       in speedups; by default they are shown but not compared\n"
         "  --help               this text\n"
         "\n"
         "Exit status: 0 report written, 1 unreadable input or output, 2 bad command line.\n";
}

}  // namespace gemmscope::report
