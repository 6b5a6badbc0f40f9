#include "tools/report/merged_input.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

TEST(MergedInput, ALaterFileReplacesACaseAndSaysSo) {
  const Report report = report_of({"model_gb17_ns.json", "model_replace_one_case.json"});
  const MergedInput& input = report.input;
  EXPECT_EQ(input.cases.size(), 72u);
  const auto replaced = std::find_if(input.cases.begin(), input.cases.end(), [](const auto& c) {
    return c.gemm.key() == "FP8Current/Fprop/qkv/autocast";
  });
  ASSERT_NE(replaced, input.cases.end());
  EXPECT_EQ(replaced->ms, 0.5);
  EXPECT_EQ(replaced->source, "model_replace_one_case.json");
  EXPECT_EQ(input.notices,
            (std::vector<std::string>{"model_replace_one_case.json replaces 1 case from "
                                      "model_gb17_ns.json: FP8Current/Fprop/qkv/autocast"}));
  EXPECT_EQ(input.files,
            (std::vector<std::string>{"model_gb17_ns.json", "model_replace_one_case.json"}));
}

TEST(MergedInput, FilesThatDisagreeOnTheRunAreNamedAndTheLaterWins) {
  const BenchmarkFile a = parse_benchmark_json(
      R"({"context": {"device_name": "NVIDIA H100", "date": "monday"}, "benchmarks": [
          {"name": "BF16/Fprop/qkv/native/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"}]})",
      "a.json");
  const BenchmarkFile b = parse_benchmark_json(
      R"({"context": {"device_name": "NVIDIA H200", "date": "tuesday"}, "benchmarks": [
          {"name": "BF16/Fprop/qkv/native/M:16/K:8/N:8", "real_time": 2, "time_unit": "ms"}]})",
      "b.json");
  const MergedInput input = merge_files({a, b});
  EXPECT_EQ(input.context.value_or_unknown("device_name"), "NVIDIA H200");
  EXPECT_EQ(input.notices,
            (std::vector<std::string>{
                "b.json and a.json disagree on device_name ('NVIDIA H200' vs 'NVIDIA H100'); "
                "the report uses 'NVIDIA H200'",
                "b.json replaces 1 case from a.json: BF16/Fprop/qkv/native (shape 8x8x8 -> "
                "16x8x8)"}));
  ASSERT_EQ(input.cases.size(), 1u);
  EXPECT_EQ(input.cases[0].ms, 2.0);
}

TEST(MergedInput, QuantizationAndUnparseableEntriesCountOnceAcrossFiles) {
  const Report report = report_of({"model_gb17_ns.json", "model_gb17_ns.json"});
  EXPECT_EQ(report.input.quantize_cases, 2u);
  EXPECT_EQ(report.input.unparsed.size(), 3u);
  EXPECT_EQ(input_warnings(report.input).back(),
            "3 benchmark entries not understood and left out: "
            "FP16/Fprop/qkv/native/M:2048/K:1024/N:3072/manual_time (unknown precision 'FP16'); "
            "BF16/Fprop/qkv/autocast/M:2048/K:1024/N:3072/manual_time (mode 'native' is BF16's "
            "only mode, got 'BF16' with 'autocast'); "
            "BF16/Fprop/proj/native/M:2048/K:1024/N:3072/manual_time (unknown op 'proj')");
}

}  // namespace
}  // namespace gemmscope::report
