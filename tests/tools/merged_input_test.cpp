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

// A file of one BF16 case per op named, with `context` (a JSON object's members).
BenchmarkFile file_of(const std::string& path, const std::string& context,
                      const std::vector<std::string>& ops) {
  std::string entries;
  for (const std::string& op : ops) {
    entries += std::string(entries.empty() ? "" : ",") + R"({"name": "BF16/Fprop/)" + op +
               R"(/native/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"})";
  }
  return parse_benchmark_json(
      R"({"context": {)" + context + R"(}, "benchmarks": [)" + entries + "]}", path);
}

TEST(MergedInput, FilesThatCountAnOpsLayersDifferentlyAreNamed) {
  const std::string moe = R"("op_layers": "qkv=61 attn_out=61 mlp_up=3 mlp_down=3")";
  const std::string other = R"("op_layers": "qkv=61 attn_out=61 mlp_up=1 mlp_down=1")";
  const MergedInput input = merge_files(
      {file_of("a.json", moe, {"qkv", "mlp_up"}), file_of("b.json", other, {"attn_out"})});
  EXPECT_EQ(input.notices,
            (std::vector<std::string>{
                "b.json and a.json disagree on the layers per op (mlp_down 1 vs 3, mlp_up 1 vs "
                "3); the report uses op_layers 'qkv=61 attn_out=61 mlp_up=1 mlp_down=1'"}));
  EXPECT_EQ(input.context.value_or_unknown("op_layers"), "qkv=61 attn_out=61 mlp_up=1 mlp_down=1");
}

TEST(MergedInput, AFileWithoutOpLayersCountsNumHiddenLayersForEachOfItsOps) {
  const std::string older = R"("num_hidden_layers": "4")";
  const std::string same = R"("op_layers": "qkv=4 attn_out=4 mlp_up=4 mlp_down=4")";
  EXPECT_TRUE(merge_files({file_of("old.json", older, {"qkv", "mlp_up"}),
                           file_of("new.json", same, {"attn_out"})})
                  .notices.empty());

  const std::string moe = R"("num_hidden_layers": "61", "op_layers": "qkv=61 mlp_up=3")";
  const std::string dense = R"("num_hidden_layers": "61")";
  EXPECT_EQ(merge_files({file_of("dense.json", dense, {"qkv", "mlp_up"}),
                         file_of("moe.json", moe, {"attn_out"})})
                .notices,
            (std::vector<std::string>{"moe.json and dense.json disagree on the layers per op "
                                      "(mlp_up 3 vs 61); the report uses op_layers 'qkv=61 "
                                      "mlp_up=3'"}));
  // The other way round the earlier op_layers stays in the context, so the report uses it.
  EXPECT_EQ(merge_files({file_of("moe.json", moe, {"attn_out"}),
                         file_of("dense.json", dense, {"qkv", "mlp_up"})})
                .notices,
            (std::vector<std::string>{"dense.json and moe.json disagree on the layers per op "
                                      "(mlp_up 61 vs 3); the report uses op_layers 'qkv=61 "
                                      "mlp_up=3'"}));
}

TEST(MergedInput, AReplacedGroupedCaseShowsItsGroups) {
  const BenchmarkFile a = parse_benchmark_json(
      R"({"benchmarks": [{"name": "BF16/Fprop/expert_up/native/G:32/M:8/K:8/N:8",
          "real_time": 1, "time_unit": "ms"}]})",
      "a.json");
  const BenchmarkFile b = parse_benchmark_json(
      R"({"benchmarks": [{"name": "BF16/Fprop/expert_up/native/G:31/M:8/K:8/N:8",
          "real_time": 2, "time_unit": "ms"}]})",
      "b.json");
  EXPECT_EQ(merge_files({a, b}).notices,
            (std::vector<std::string>{"b.json replaces 1 case from a.json: "
                                      "BF16/Fprop/expert_up/native (shape G:32 8x8x8 -> G:31 "
                                      "8x8x8)"}));
}

}  // namespace
}  // namespace gemmscope::report
