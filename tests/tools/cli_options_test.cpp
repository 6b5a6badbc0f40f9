#include "tools/report/cli_options.h"

#include <gtest/gtest.h>

namespace gemmscope::report {
namespace {

std::string usage_error_of(const std::vector<std::string>& args) {
  try {
    parse_cli(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(CliOptions, DefaultsToTextOnStandardOutput) {
  const CliOptions options = parse_cli({"a.json"});
  EXPECT_EQ(options.format, OutputFormat::kText);
  EXPECT_FALSE(options.svg_path.has_value());
  EXPECT_FALSE(options.include_emulated);
  EXPECT_EQ(options.files, (std::vector<std::string>{"a.json"}));
}

TEST(CliOptions, ReadsEveryFlagAndKeepsFileOrder) {
  const CliOptions options =
      parse_cli({"b.json", "--format=markdown", "--svg=chart.svg", "--include-emulated", "a.json"});
  EXPECT_EQ(options.format, OutputFormat::kMarkdown);
  EXPECT_EQ(options.svg_path, "chart.svg");
  EXPECT_TRUE(options.include_emulated);
  EXPECT_EQ(options.files, (std::vector<std::string>{"b.json", "a.json"}));
  EXPECT_EQ(parse_cli({"--format=csv", "x"}).format, OutputFormat::kCsv);
  EXPECT_EQ(parse_cli({"--format=json", "x"}).format, OutputFormat::kJson);
  EXPECT_EQ(parse_cli({"--", "--odd-name.json"}).files,
            (std::vector<std::string>{"--odd-name.json"}));
}

TEST(CliOptions, HelpNeedsNoFile) {
  EXPECT_TRUE(parse_cli({"--help"}).help);
  EXPECT_TRUE(parse_cli({"-h"}).help);
}

TEST(CliOptions, BadCommandLinesSayWhatIsWrong) {
  EXPECT_EQ(usage_error_of({}), "no input file (give one or more Google Benchmark JSON files)");
  EXPECT_EQ(usage_error_of({"--verbose", "a.json"}), "unknown option '--verbose'");
  EXPECT_EQ(usage_error_of({"--format=html", "a.json"}),
            "unknown --format 'html' (expected text, markdown, csv or json)");
  EXPECT_EQ(usage_error_of({"--svg=", "a.json"}), "--svg needs a file name: --svg=FILE");
}

}  // namespace
}  // namespace gemmscope::report
