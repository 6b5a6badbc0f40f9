// Runs the gemm_report executable the way a user does: exit codes, stdout, stderr, files.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report_fixtures.h"
#include "xml_well_formed.h"

namespace gemmscope::report {
namespace {

using testing::fixture_path;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path scratch_dir() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gemm_report_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// `arguments` is passed through the shell as written.
RunResult run_gemm_report(const std::string& arguments) {
  const std::filesystem::path err_path = scratch_dir() / "stderr.txt";
  const std::string command =
      std::string("'") + GEMM_REPORT_PATH + "' " + arguments + " 2>'" + err_path.string() + "'";
  RunResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr)
    return result;
  std::array<char, 4096> buffer{};
  size_t read = 0;
  while ((read = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.out.append(buffer.data(), read);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err_path);
  return result;
}

std::string quoted_fixture(const std::string& name) {
  return "'" + fixture_path(name) + "'";
}

TEST(GemmReportBinary, PrintsTheTextReportAndWarningsOnStderr) {
  const RunResult run = run_gemm_report(quoted_fixture("model_gb17_ns.json"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Speedup vs BF16    1.00x       1.60x       1.33x   n/a[1]\n"),
            std::string::npos);
  EXPECT_EQ(run.err,
            "gemm_report: warning: 3 benchmark entries not understood and left out: "
            "FP16/Fprop/qkv/native/M:2048/K:1024/N:3072/manual_time (unknown precision 'FP16'); "
            "BF16/Fprop/qkv/autocast/M:2048/K:1024/N:3072/manual_time (mode 'native' is BF16's "
            "only mode, got 'BF16' with 'autocast'); "
            "BF16/Fprop/proj/native/M:2048/K:1024/N:3072/manual_time (unknown op 'proj')\n");
}

TEST(GemmReportBinary, SaysWhichCaseALaterFileReplaced) {
  const RunResult run = run_gemm_report("--format=json " + quoted_fixture("model_gb17_ns.json") +
                                        " " + quoted_fixture("model_replace_one_case.json"));
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.err.find("gemm_report: warning: " + fixture_path("model_replace_one_case.json") +
                         " replaces 1 case from " + fixture_path("model_gb17_ns.json") +
                         ": FP8Current/Fprop/qkv/autocast\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("\"per_layer_ms\": {\n        \"BF16\": 19.0,\n        \"FP8Current\": "
                         "11.4375,"),
            std::string::npos);
}

TEST(GemmReportBinary, EveryFormatWritesSomethingOfItsKind) {
  const std::string input = quoted_fixture("shapes_gb18_ns.json");
  EXPECT_EQ(run_gemm_report("--format=csv " + input).out.rfind("mode,quantity,pass,op,", 0), 0u);
  EXPECT_EQ(run_gemm_report("--format=markdown " + input).out.rfind("## GEMM report: ", 0), 0u);
  EXPECT_EQ(run_gemm_report("--format=json " + input).out.rfind("{\n  \"device\": ", 0), 0u);
}

TEST(GemmReportBinary, WritesAWellFormedSvg) {
  const std::filesystem::path svg = scratch_dir() / "chart.svg";
  const RunResult run =
      run_gemm_report("--svg='" + svg.string() + "' " + quoted_fixture("model_gb17_ns.json"));
  EXPECT_EQ(run.exit_code, 0);
  const std::string chart = read_file(svg);
  EXPECT_NE(chart.find("<svg "), std::string::npos);
  EXPECT_EQ(testing::xml_well_formedness_error(chart), "");
}

TEST(GemmReportBinary, HelpGoesToStdoutWithExitZero) {
  const RunResult run = run_gemm_report("--help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("usage: gemm_report [--format=text|markdown|csv|json] [--svg=FILE]", 0),
            0u);
}

TEST(GemmReportBinary, BadCommandLinesExitTwoWithUsage) {
  for (const std::string& arguments :
       {std::string(""), std::string("--bogus x.json"), std::string("--format=yaml x.json")}) {
    const RunResult run = run_gemm_report(arguments);
    EXPECT_EQ(run.exit_code, 2) << arguments;
    EXPECT_TRUE(run.out.empty());
    EXPECT_NE(run.err.find("\n\nusage: gemm_report"), std::string::npos) << run.err;
  }
  EXPECT_EQ(
      run_gemm_report("--bogus x.json").err.rfind("gemm_report: unknown option '--bogus'\n", 0),
      0u);
}

TEST(GemmReportBinary, UnreadableInputExitsOneNamingTheFile) {
  const std::string missing = (scratch_dir() / "missing.json").string();
  const RunResult gone = run_gemm_report("'" + missing + "'");
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_EQ(gone.err, "gemm_report: error: " + missing + ": cannot open the file for reading\n");
  EXPECT_TRUE(gone.out.empty());

  const RunResult text = run_gemm_report(quoted_fixture("not_json.txt"));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(
      text.err.rfind("gemm_report: error: " + fixture_path("not_json.txt") + ": not JSON (", 0), 0u)
      << text.err;

  const RunResult foreign = run_gemm_report(quoted_fixture("not_benchmark.json"));
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find(fixture_path("not_benchmark.json") + ": not Google Benchmark output"),
            std::string::npos);
}

TEST(GemmReportBinary, InputWithoutGemmCasesExitsOne) {
  const std::filesystem::path path = scratch_dir() / "other.json";
  std::ofstream(path) << R"({"context": {}, "benchmarks": [{"name": "BM_memcpy/64",
      "real_time": 1, "time_unit": "ns"}]})";
  const RunResult run = run_gemm_report("'" + path.string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("gemm_report: error: no gemmscope GEMM cases in the input"),
            std::string::npos)
      << run.err;
}

TEST(GemmReportBinary, UnwritableSvgExitsOne) {
  const RunResult run =
      run_gemm_report("--svg=/nonexistent/dir/chart.svg " + quoted_fixture("model_gb17_ns.json"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("gemm_report: error: /nonexistent/dir/chart.svg: cannot write the file\n"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmscope::report
