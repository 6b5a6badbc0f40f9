#include "tools/report/benchmark_file.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::fixture_path;

// The message of the std::runtime_error `load` throws, or "" when it does not throw.
template <typename Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

TEST(BenchmarkFile, ReadsGoogleBenchmark17OutputWithContextCountersAndLabel) {
  const BenchmarkFile file = load_benchmark_file(fixture_path("model_gb17_ns.json"));
  EXPECT_EQ(file.context.at("device_name"), "NVIDIA H200");
  EXPECT_EQ(file.context.at("num_cpus"), "16");  // GB's own non-string keys keep their text
  ASSERT_FALSE(file.entries.empty());
  const BenchmarkEntry& first = file.entries.front();
  EXPECT_EQ(first.name, "BF16/Fprop/qkv/native/M:2048/K:1024/N:3072/manual_time");
  EXPECT_EQ(first.run_name, first.name);
  EXPECT_FALSE(first.is_aggregate);
  EXPECT_EQ(first.real_time, 1.5e6);
  EXPECT_EQ(first.time_unit, "ns");
  EXPECT_EQ(first.outcome, BenchmarkEntry::Outcome::kOk);
  EXPECT_EQ(first.counters.at("M"), 2048);
  EXPECT_EQ(first.counters.count("iterations"), 0u) << "GB's own numbers are not counters";
  const auto mxfp8 = std::find_if(file.entries.begin(), file.entries.end(), [](const auto& e) {
    return e.name.rfind("MXFP8/Fprop/qkv/autocast", 0) == 0;
  });
  ASSERT_NE(mxfp8, file.entries.end());
  EXPECT_EQ(mxfp8->counters.at("emulated"), 1);
  EXPECT_EQ(mxfp8->label, "emulated block-scaled GEMM (no MXFP8 tensor cores on sm_90)");
}

TEST(BenchmarkFile, NonFiniteNumbersBecomeAbsentInsteadOfBreakingTheFile) {
  // Google Benchmark writes NaN and Infinity bare, which is not JSON.
  const BenchmarkFile file = parse_benchmark_json(
      R"({"context": {"note": "NaN stays text"}, "benchmarks": [
          {"name": "a", "real_time": NaN, "time_unit": "ms", "rel_err": -Infinity,
           "TFLOPS": Infinity, "label": "Infinity"}]})",
      "inline.json");
  EXPECT_EQ(file.context.at("note"), "NaN stays text");
  ASSERT_EQ(file.entries.size(), 1u);
  EXPECT_FALSE(file.entries[0].real_time.has_value());
  EXPECT_EQ(file.entries[0].counters.count("rel_err"), 0u);
  EXPECT_EQ(file.entries[0].label, "Infinity");
}

TEST(BenchmarkFile, ReadsErrorsOf17And18AndSkipsOf18) {
  const BenchmarkFile file = parse_benchmark_json(
      R"({"benchmarks": [
          {"name": "e", "error_occurred": true, "error_message": "bad", "real_time": 0},
          {"name": "s", "skipped": true, "skip_message": "not here", "real_time": 0},
          {"name": "m_median", "run_name": "m", "run_type": "aggregate",
           "aggregate_name": "median", "real_time": 2.0, "time_unit": "us"}]})",
      "inline.json");
  ASSERT_EQ(file.entries.size(), 3u);
  EXPECT_EQ(file.entries[0].outcome, BenchmarkEntry::Outcome::kError);
  EXPECT_EQ(file.entries[0].message, "bad");
  EXPECT_EQ(file.entries[1].outcome, BenchmarkEntry::Outcome::kSkipped);
  EXPECT_EQ(file.entries[1].message, "not here");
  EXPECT_TRUE(file.entries[2].is_aggregate);
  EXPECT_EQ(file.entries[2].aggregate_name, "median");
  EXPECT_EQ(file.entries[2].run_name, "m");
}

TEST(BenchmarkFile, MissingFileIsNamed) {
  EXPECT_EQ(error_of([] { load_benchmark_file("/nonexistent/run.json"); }),
            "/nonexistent/run.json: cannot open the file for reading");
}

TEST(BenchmarkFile, DirectoryIsNamed) {
  EXPECT_EQ(error_of([] { load_benchmark_file(REPORT_FIXTURES_DIR); }),
            std::string(REPORT_FIXTURES_DIR) + ": is a directory, not a benchmark JSON file");
}

TEST(BenchmarkFile, TextThatIsNotJsonIsNamed) {
  const std::string path = fixture_path("not_json.txt");
  const std::string message = error_of([&] { load_benchmark_file(path); });
  EXPECT_EQ(message.rfind(path + ": not JSON (", 0), 0u) << message;
}

TEST(BenchmarkFile, JsonThatIsNotBenchmarkOutputIsNamed) {
  const std::string path = fixture_path("not_benchmark.json");
  EXPECT_EQ(error_of([&] { load_benchmark_file(path); }),
            path +
                ": not Google Benchmark output (no \"benchmarks\" array; write it with "
                "--benchmark_out=FILE --benchmark_out_format=json)");
  EXPECT_EQ(error_of([] { parse_benchmark_json(R"({"benchmarks": [{"real_time": 1}]})", "x"); }),
            "x: not Google Benchmark output (benchmarks[0] has no \"name\")");
}

// Found by gemm_report_fuzzer: nlohmann throws out_of_range, not parse_error, for a number too
// large for a double, and it escaped as an exception that names no file.
TEST(BenchmarkFile, NumberTooLargeForADoubleIsNotJsonNamingTheFile) {
  EXPECT_EQ(error_of([] {
              parse_benchmark_json(R"({"benchmarks": [{"name": "a", "real_time": 1e277760001}]})",
                                   "x");
            }).rfind("x: not JSON ([json.exception.out_of_range.406] number overflow", 0),
            0u);
}

}  // namespace
}  // namespace gemmscope::report
