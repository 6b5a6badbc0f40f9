// Runs the gemm_report executable the way a user does: exit codes, stdout, stderr, files.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
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

TEST(GemmReportBinary, ReportsAMoeRunAndChartsIt) {
  const std::filesystem::path svg = scratch_dir() / "moe.svg";
  const RunResult run = run_gemm_report("--svg='" + svg.string() + "' " +
                                        quoted_fixture("moe_deepseek_like_ms.json"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("Model (3 dense, 58 MoE layers)   842.875   559.656\n"
                         "Speedup vs BF16                    1.00x     1.51x\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("expert_up     G:32 8192x1024x512      58    2.000     1.250\n"),
            std::string::npos);
  EXPECT_EQ(testing::xml_well_formedness_error(read_file(svg)), "");
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

// The bad-input catalogue: one row per input, what gemm_report must answer. Rows that accept
// the input (exit 0) say how the report marks it.
constexpr const char* kCaseName = "BF16/Fprop/gemm0/native/M:8/K:8/N:8/manual_time";

// A benchmark file whose context is `context` and whose entries are the JSON objects listed.
std::string benchmark_file(const std::vector<std::string>& entries,
                           const std::string& context = R"({"device_name": "NVIDIA H200"})") {
  std::string text = R"({"context": )" + context + R"(, "benchmarks": [)";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i > 0 ? ", " : "") + entries[i];
  return text + "]}";
}

// One entry named `name` with the fields given after its name.
std::string entry(const std::string& fields, const std::string& name = kCaseName) {
  return R"({"name": ")" + name + "\", " + fields + "}";
}

std::string good_entry() {
  return entry(R"("real_time": 1.5, "time_unit": "ms")");
}

// Two entries, cut inside the second.
std::string cut_in_second_entry() {
  const std::string text =
      benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": "ms")",
                                          "BF16/Fprop/gemm1/native/M:8/K:8/N:8/manual_time")});
  return text.substr(0, text.size() - 20);
}

struct BadInputRow {
  std::string what;                // the problem, as the test's name for the row
  std::vector<std::string> files;  // contents of the input files, in order
  std::string options;             // extra command-line options
  int exit_code;                   // 0: accepted (and marked), 1: refused
  std::string says;                // in stdout or stderr
};

// The dense model fixture with `op_layers` added to its context.
std::string dense_fixture_with_op_layers(const std::string& op_layers) {
  std::string text = read_file(fixture_path("model_gb17_ns.json"));
  const std::string key = "\"num_hidden_layers\": \"4\"";
  return text.replace(text.find(key), key.size(), key + ", \"op_layers\": \"" + op_layers + "\"");
}

std::vector<BadInputRow> bad_input_rows() {
  const std::string model_a =
      R"({"device_name": "NVIDIA H200", "model_config": "hidden_size=4096"})";
  const std::string model_b =
      R"({"device_name": "NVIDIA H100", "model_config": "hidden_size=8192"})";
  return {
      {"empty file", {""}, "", 1, "not JSON"},
      {"only blanks", {" \n\t "}, "", 1, "not JSON"},
      {"an array, not an object", {"[]"}, "", 1, "no \"benchmarks\" array"},
      {"benchmarks is an object", {R"({"benchmarks": {}})"}, "", 1, "no \"benchmarks\" array"},
      {"benchmarks is a string", {R"({"benchmarks": "x"})"}, "", 1, "no \"benchmarks\" array"},
      {"an entry is an array",
       {R"({"benchmarks": [[1]]})"},
       "",
       1,
       "benchmarks[0] has no \"name\""},
      {"a name is a number",
       {R"({"benchmarks": [{"name": 5}]})"},
       "",
       1,
       "benchmarks[0] has no \"name\""},
      {"no entries", {benchmark_file({})}, "", 1, "no gemmscope GEMM cases"},
      {"trailing text after the document",
       {benchmark_file({good_entry()}) + " x"},
       "",
       1,
       "not JSON"},
      {"invalid UTF-8 in a name",
       {benchmark_file({entry(R"("real_time": 1)", "BF16\xff")})},
       "",
       1,
       "not JSON"},
      {"nested 100 levels deep",
       {std::string(100, '[') + std::string(100, ']')},
       "",
       1,
       "nested 100 levels deep; at most 64 are read"},
      {"a number too large for a double",
       {benchmark_file({entry(R"("real_time": 1e999)")})},
       "",
       1,
       "number overflow"},
      {"cut before any complete case",
       {benchmark_file({good_entry()}).substr(0, 70)},
       "",
       1,
       "before its first complete benchmark entry; nothing to recover"},
      {"cut after one complete case (accepted, warned)",
       {cut_in_second_entry()},
       "",
       0,
       "ends early (a run cut short?): read the 1 complete benchmark entry before the cut"},
      {"real_time is a string (n/a)",
       {benchmark_file({entry(R"("real_time": "1.5")")})},
       "",
       0,
       "n/a: real_time is not a number"},
      {"real_time is NaN (n/a)",
       {benchmark_file({entry(R"("real_time": NaN)")})},
       "",
       0,
       "n/a: real_time is not a number"},
      {"real_time is Infinity (n/a)",
       {benchmark_file({entry(R"("real_time": Infinity, "time_unit": "ms")")})},
       "",
       0,
       "n/a: real_time is not a number"},
      {"real_time is negative (n/a)",
       {benchmark_file({entry(R"("real_time": -1.5, "time_unit": "ms")")})},
       "",
       0,
       "n/a: real_time -1.5 is not positive"},
      {"real_time is zero (n/a)",
       {benchmark_file({entry(R"("real_time": 0, "time_unit": "ms")")})},
       "",
       0,
       "n/a: real_time 0 is not positive"},
      {"an unknown time unit",
       {benchmark_file({entry(R"("real_time": 1, "time_unit": "min")")})},
       "",
       1,
       "(unknown time_unit 'min')"},
      {"a time unit that is a number (left out, warned)",
       {benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": 3)",
                                            "BF16/Fprop/gemm1/native/M:8/K:8/N:8/manual_time")})},
       "",
       0,
       "(unknown time_unit '')"},
      {"an error flag that is a string (not an error)",
       {benchmark_file({entry(R"("real_time": 1, "time_unit": "ms", "error_occurred": "yes")")})},
       "",
       0,
       "gemm0  Fprop  8x8x8    1.000"},
      {"a failed case (n/a with its message)",
       {benchmark_file({entry(R"("error_occurred": true, "error_message": "out of memory")")})},
       "",
       0,
       "n/a: failed: out of memory"},
      {"a name outside the grammar: zero M",
       {benchmark_file({entry(R"("real_time": 1)", "BF16/Fprop/gemm0/native/M:0/K:8/N:8")})},
       "",
       1,
       "expected M:{m}/K:{k}/N:{n} with positive integers"},
      {"a name outside the grammar: extra field",
       {benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": "ms")",
                                            "BF16/Fprop/gemm1/native/M:8/K:8/N:8/x")})},
       "",
       0,
       "unexpected field 'x'"},
      {"a name outside the grammar: gemm01",
       {benchmark_file({entry(R"("real_time": 1)", "BF16/Fprop/gemm01/native/M:8/K:8/N:8")})},
       "",
       1,
       "unknown op 'gemm01'"},
      {"a name outside the grammar: empty",
       {benchmark_file({entry(R"("real_time": 1)", "")})},
       "",
       1,
       "unknown precision ''"},
      {"the same case twice in one file (median, warned)",
       {benchmark_file({good_entry(), entry(R"("real_time": 2.5, "time_unit": "ms")")})},
       "",
       0,
       "holds 2 rows of " + std::string(kCaseName) + " without repetition aggregates"},
      {"two files from different devices (merged, warned)",
       {benchmark_file({good_entry()}, model_a), benchmark_file({good_entry()}, model_b)},
       "",
       0,
       "disagree on device_name ('NVIDIA H100' vs 'NVIDIA H200')"},
      {"two files of different models (merged, warned)",
       {benchmark_file({good_entry()}, model_a), benchmark_file({good_entry()}, model_b)},
       "",
       0,
       "disagree on model_config ('hidden_size=8192' vs 'hidden_size=4096')"},
      {"a grouped case without G (left out, warned)",
       {benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": "ms")",
                                            "BF16/Fprop/expert_up/native/M:8/K:8/N:8")})},
       "",
       0,
       "(grouped op 'expert_up' needs G:{groups} before M:{m})"},
      {"a grouped case with G:0 (left out, warned)",
       {benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": "ms")",
                                            "BF16/Fprop/expert_down/native/G:0/M:8/K:8/N:8")})},
       "",
       0,
       "(expected G:{groups} with a positive integer, got 'G:0')"},
      {"G on an op that is not grouped (left out, warned)",
       {benchmark_file({good_entry(), entry(R"("real_time": 1, "time_unit": "ms")",
                                            "BF16/Fprop/gemm1/native/G:2/M:8/K:8/N:8")})},
       "",
       0,
       "('G:2' on op 'gemm1': only grouped ops (expert_up, expert_down) have G:{groups})"},
      {"malformed op_layers (model total n/a, with the reason)",
       {dense_fixture_with_op_layers("qkv=4 attn_out=4 mlp_up=4 mlp_down=-4")},
       "",
       0,
       "n/a: op_layers 'qkv=4 attn_out=4 mlp_up=4 mlp_down=-4' is malformed: layers of mlp_down "
       "must be a positive integer, got '-4'"},
      {"op_layers without an op that has cases (model total n/a, with the reason)",
       {dense_fixture_with_op_layers("qkv=4 attn_out=4 mlp_up=4")},
       "",
       0,
       "n/a: op_layers has no count for mlp_down ('qkv=4 attn_out=4 mlp_up=4')"},
      {"two files that count an op's layers differently (merged, warned)",
       {dense_fixture_with_op_layers("qkv=4 attn_out=4 mlp_up=4 mlp_down=4"),
        dense_fixture_with_op_layers("qkv=4 attn_out=4 mlp_up=2 mlp_down=2")},
       "",
       0,
       "disagree on the layers per op (mlp_down 2 vs 4, mlp_up 2 vs 4); the report uses "
       "op_layers 'qkv=4 attn_out=4 mlp_up=2 mlp_down=2'"},
      {"the context is an array (ignored)",
       {benchmark_file({good_entry()}, "[1, 2]")},
       "",
       0,
       "Device:   unknown"},
      {"a chart of --shapes cases only",
       {benchmark_file({good_entry()})},
       "--svg=" + (scratch_dir() / "chart.svg").string(),
       1,
       "the chart needs a model run"},
      {"an --svg path that is a directory",
       {read_file(fixture_path("model_gb17_ns.json"))},
       "--svg=" + scratch_dir().string(),
       1,
       scratch_dir().string() + ": cannot write the file"},
  };
}

void PrintTo(const BadInputRow& row, std::ostream* out) {
  *out << row.what;
}

class GemmReportBadInput : public ::testing::TestWithParam<BadInputRow> {};

TEST_P(GemmReportBadInput, ExitsAsTheRowSaysAndNamesTheProblem) {
  const BadInputRow& row = GetParam();
  std::string arguments = row.options.empty() ? "" : "'" + row.options + "'";
  for (size_t i = 0; i < row.files.size(); ++i) {
    const std::filesystem::path path = scratch_dir() / ("input" + std::to_string(i) + ".json");
    std::ofstream(path, std::ios::binary) << row.files[i];
    arguments += " '" + path.string() + "'";
  }
  const RunResult run = run_gemm_report(arguments);
  EXPECT_EQ(run.exit_code, row.exit_code) << row.what << "\n" << run.err << run.out;
  EXPECT_NE((run.err + run.out).find(row.says), std::string::npos)
      << row.what << ": expected '" << row.says << "' in\n"
      << run.err << run.out;
  if (row.exit_code != 0) {
    EXPECT_NE(run.err.find("gemm_report: error: "), std::string::npos) << run.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, GemmReportBadInput, ::testing::ValuesIn(bad_input_rows()));

// 50 MB of benchmark output (100,000 distinct --shapes cases, each with a long label) is read
// and reported whole: gemm_report holds the file, its parsed form and the report in memory at
// once, which for this size stays well below a gigabyte.
TEST(GemmReportBinary, FiftyMegabytesOfCasesAreReportedInFull) {
  const std::filesystem::path path = scratch_dir() / "large.json";
  constexpr int kCases = 100000;
  {
    std::ofstream out(path, std::ios::binary);
    out << R"({"context": {"device_name": "NVIDIA H200"}, "benchmarks": [)";
    const std::string label(400, 'x');
    for (int i = 0; i < kCases; ++i) {
      out << (i > 0 ? ",\n" : "") << R"({"name": "BF16/Fprop/gemm)" << i
          << R"(/native/M:8/K:8/N:8/manual_time", "real_time": 1.5, "time_unit": "ms", "label": ")"
          << label << "\"}";
    }
    out << "]}";
  }
  ASSERT_GT(std::filesystem::file_size(path), 50'000'000u);
  const auto start = std::chrono::steady_clock::now();
  const RunResult run = run_gemm_report("--format=csv '" + path.string() + "'");
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  std::filesystem::remove(path);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // About 2 s and 300 MB in a release build; the bounds leave room for sanitizers and CI.
  EXPECT_LT(seconds.count(), 60.0);
  rusage usage{};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 2L * 1024 * 1024) << "kilobytes at the peak";
  EXPECT_NE(run.out.find("native,gemm_ms,Fprop,gemm99999,8,8,8,BF16,1.5,"), std::string::npos);
}

}  // namespace
}  // namespace gemmscope::report
