#include "tools/report/shapes_report.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

TEST(ShapesReport, OneRowPerGemmWithTimeTflopsAndSpeedup) {
  const Report report = report_of({"shapes_gb18_ns.json"});
  EXPECT_FALSE(report.model.has_value());
  ASSERT_TRUE(report.shapes.has_value());
  ASSERT_EQ(report.shapes->modes.size(), 2u);
  const ShapesModeReport& autocast = report.shapes->modes[0];
  EXPECT_EQ(autocast.mode, Mode::kAutocast);
  EXPECT_EQ(autocast.precisions,
            (std::vector<Precision>{Precision::kBF16, Precision::kFP8Current, Precision::kMXFP8}));
  ASSERT_EQ(autocast.rows.size(), 2u);
  const ShapesRow& gemm0 = autocast.rows[0];
  EXPECT_EQ(gemm0.op, "gemm0");
  EXPECT_EQ(gemm0.pass, Pass::kFprop);
  EXPECT_EQ(gemm0.shape, (GemmShape{4096, 4096, 4096}));
  EXPECT_EQ(gemm0.ms.at(Precision::kBF16).number, 0.25);
  EXPECT_EQ(gemm0.ms.at(Precision::kFP8Current).number, 0.15625);
  EXPECT_DOUBLE_EQ(*gemm0.tflops.at(Precision::kBF16).number, 2.0 * 4096 * 4096 * 4096 / 0.25e9);
  EXPECT_EQ(gemm0.speedup_vs_bf16.at(Precision::kFP8Current).number, 1.6);
  EXPECT_EQ(gemm0.speedup_vs_bf16.at(Precision::kMXFP8).na_reason, kEmulatedReason);
  EXPECT_TRUE(gemm0.tflops.at(Precision::kMXFP8).emulated);

  const ShapesModeReport& prequant = report.shapes->modes[1];
  EXPECT_EQ(prequant.precisions,
            (std::vector<Precision>{Precision::kBF16, Precision::kFP8Current}));
  EXPECT_EQ(prequant.rows[1].speedup_vs_bf16.at(Precision::kFP8Current).number, 2.0);
}

TEST(ShapesReport, RowsFollowTheGemmPositionNotTheTextOrder) {
  std::string benchmarks;
  for (int i : {10, 2, 1}) {
    benchmarks += std::string(benchmarks.empty() ? "" : ",") + R"({"name": "BF16/Fprop/gemm)" +
                  std::to_string(i) + R"(/native/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"})";
  }
  const BenchmarkFile file = parse_benchmark_json(R"({"benchmarks": [)" + benchmarks + "]}", "x");
  const Report report = build_report(merge_files({file}), {});
  ASSERT_EQ(report.shapes->modes.size(), 1u);
  std::vector<std::string> ops;
  for (const ShapesRow& row : report.shapes->modes[0].rows)
    ops.push_back(row.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"gemm1", "gemm2", "gemm10"}));
}

TEST(ShapesReport, MissingBaselineCellGivesNaSpeedup) {
  const BenchmarkFile file = parse_benchmark_json(
      R"({"benchmarks": [
          {"name": "BF16/Fprop/gemm0/native/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"},
          {"name": "FP8Current/Fprop/gemm0/autocast/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"},
          {"name": "FP8Current/Fprop/gemm1/autocast/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"}]})",
      "x");
  const Report report = build_report(merge_files({file}), {});
  const ShapesRow& gemm1 = report.shapes->modes[0].rows[1];
  EXPECT_EQ(gemm1.ms.at(Precision::kBF16).na_reason, kMissingReason);
  EXPECT_EQ(gemm1.speedup_vs_bf16.at(Precision::kFP8Current).na_reason, "the BF16 baseline is n/a");
}

}  // namespace
}  // namespace gemmscope::report
