#include "tools/report/case_results.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::fixture_path;

// The key is a string_view so that a literal argument binds no temporary to the result.
const CaseResult& find(const FileCases& cases, std::string_view key) {
  for (const CaseResult& result : cases.cases) {
    if (result.gemm.key() == key)
      return result;
  }
  throw std::runtime_error("no case " + std::string(key));
}

TEST(CaseResults, RepetitionsUseTheMedianAggregateNotTheMeanOrTheIterationRows) {
  // Repetitions of 1.875, 1.3125 and 1.5 ms: median 1.5, mean 1.5625.
  const FileCases cases =
      reduce_file(load_benchmark_file(fixture_path("model_gb18_ms_repetitions.json")));
  EXPECT_EQ(cases.cases.size(), 47u);
  const CaseResult bf16 = find(cases, "BF16/Fprop/qkv/native");
  EXPECT_EQ(bf16.ms, 1.5);
  EXPECT_FALSE(bf16.emulated);
  EXPECT_EQ(bf16.gemm.shape, (GemmShape{2048, 1024, 3072}));
  EXPECT_EQ(find(cases, "FP8Block/Wgrad/mlp_down/autocast").ms, 2.25 * 0.75);
}

TEST(CaseResults, SkippedAndFailedCasesCarryTheirReason) {
  const FileCases cases =
      reduce_file(load_benchmark_file(fixture_path("model_gb18_ms_repetitions.json")));
  const CaseResult skipped = find(cases, "FP8Block/Dgrad/mlp_up/autocast");
  EXPECT_FALSE(skipped.ms.has_value());
  EXPECT_EQ(skipped.na_reason, "skipped: no cuBLASLt algorithm for this 1x128 layout");
  const CaseResult failed = find(cases, "NVFP4/Fprop/qkv/autocast");
  EXPECT_FALSE(failed.ms.has_value());
  EXPECT_EQ(failed.na_reason,
            "failed: cuBLASLt: VEC16_UE4M3 scales need sm_100 or newer "
            "(CUBLAS_STATUS_NOT_SUPPORTED)");
}

TEST(CaseResults, TimeUnitsBecomeMilliseconds) {
  const FileCases ns = reduce_file(load_benchmark_file(fixture_path("model_gb17_ns.json")));
  EXPECT_EQ(find(ns, "FP8Current/Dgrad/mlp_up/autocast").ms, 1.40625);
  const FileCases us = reduce_file(load_benchmark_file(fixture_path("model_no_baseline_us.json")));
  EXPECT_EQ(find(us, "FP8Current/Dgrad/mlp_up/autocast").ms, 1.40625);
  const FileCases s = reduce_file(parse_benchmark_json(
      R"({"benchmarks": [{"name": "BF16/Fprop/qkv/native/M:1/K:1/N:1/manual_time",
          "real_time": 0.00125, "time_unit": "s"}]})",
      "s.json"));
  EXPECT_DOUBLE_EQ(*find(s, "BF16/Fprop/qkv/native").ms, 1.25);
}

TEST(CaseResults, EmulatedByCounterOrByLabel) {
  const FileCases cases = reduce_file(load_benchmark_file(fixture_path("model_gb17_ns.json")));
  EXPECT_TRUE(find(cases, "MXFP8/Wgrad/qkv/prequant").emulated);
  EXPECT_FALSE(find(cases, "FP8Current/Wgrad/qkv/prequant").emulated);
  const FileCases labelled = reduce_file(parse_benchmark_json(
      R"json({"benchmarks": [{"name": "NVFP4/Fprop/qkv/autocast/M:1/K:1/N:1", "real_time": 2,
          "time_unit": "ms", "label": "NVFP4 emulated (sm_90)"}]})json",
      "label.json"));
  EXPECT_TRUE(find(labelled, "NVFP4/Fprop/qkv/autocast").emulated);
}

TEST(CaseResults, IterationRowsWithoutAggregatesGiveTheirMedian) {
  const FileCases cases = reduce_file(parse_benchmark_json(
      R"({"benchmarks": [
          {"name": "BF16/Fprop/qkv/native/M:1/K:1/N:1", "real_time": 1, "time_unit": "ms"},
          {"name": "BF16/Fprop/qkv/native/M:1/K:1/N:1", "real_time": 5, "time_unit": "ms"},
          {"name": "BF16/Fprop/qkv/native/M:1/K:1/N:1", "error_occurred": true,
           "error_message": "one repetition failed", "real_time": 0, "time_unit": "ms"},
          {"name": "BF16/Dgrad/qkv/native/M:1/K:1/N:1", "real_time": 1, "time_unit": "ms"},
          {"name": "BF16/Dgrad/qkv/native/M:1/K:1/N:1", "real_time": 5, "time_unit": "ms"},
          {"name": "BF16/Dgrad/qkv/native/M:1/K:1/N:1", "real_time": 2, "time_unit": "ms"}]})",
      "rows.json"));
  EXPECT_EQ(find(cases, "BF16/Fprop/qkv/native").ms, 3.0);  // mean of the two middle rows
  EXPECT_EQ(find(cases, "BF16/Dgrad/qkv/native").ms, 2.0);
}

TEST(CaseResults, QuantizationCasesAreCountedAndOtherEntriesListedWithTheirProblem) {
  const FileCases cases = reduce_file(load_benchmark_file(fixture_path("model_gb17_ns.json")));
  EXPECT_EQ(cases.cases.size(), 72u);
  EXPECT_EQ(
      cases.quantize_names,
      (std::vector<std::string>{"FP8Current/Quantize/activation/rowwise/R:2048/C:1024/manual_time",
                                "MXFP8/Quantize/weight/columnwise/R:3072/C:1024/manual_time"}));
  ASSERT_EQ(cases.unparsed.size(), 3u);
  EXPECT_EQ(cases.unparsed[0].name, "FP16/Fprop/qkv/native/M:2048/K:1024/N:3072/manual_time");
  EXPECT_EQ(cases.unparsed[0].problem, "unknown precision 'FP16'");
  EXPECT_EQ(cases.unparsed[2].problem, "unknown op 'proj'");
}

TEST(CaseResults, UnknownTimeUnitMakesTheEntryUnparseable) {
  const FileCases cases = reduce_file(parse_benchmark_json(
      R"({"benchmarks": [{"name": "BF16/Fprop/qkv/native/M:1/K:1/N:1", "real_time": 1,
          "time_unit": "fortnights"}]})",
      "unit.json"));
  EXPECT_TRUE(cases.cases.empty());
  ASSERT_EQ(cases.unparsed.size(), 1u);
  EXPECT_EQ(cases.unparsed[0].problem, "unknown time_unit 'fortnights'");
}

}  // namespace
}  // namespace gemmscope::report
