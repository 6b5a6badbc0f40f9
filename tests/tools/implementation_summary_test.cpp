#include "tools/report/implementation_summary.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

// A --shapes mode of `rows` GEMMs (Fprop, then Dgrad, then Wgrad of each) whose FP8Block cases
// ran on `fp8` in that order; BF16 ran on cuBLASLt throughout.
ShapesModeReport shapes_mode(const std::vector<Implementation>& fp8,
                             const std::vector<Pass>& passes) {
  ShapesModeReport mode;
  mode.precisions = {Precision::kBF16, Precision::kFP8Block};
  for (size_t i = 0; i < fp8.size(); ++i) {
    ShapesRow row;
    row.op = "gemm" + std::to_string(i);
    row.pass = passes[i];
    row.ms[Precision::kBF16] = ReportValue::of(1.0, false, {Implementation::kCublasLt});
    row.ms[Precision::kFP8Block] = ReportValue::of(0.5, false, {fp8[i]});
    mode.rows.push_back(row);
  }
  return mode;
}

TEST(ImplementationReport, NamesThePassesOfAnImplementationThatRanInSomeOnly) {
  using I = Implementation;
  const ShapesModeReport mode =
      shapes_mode({I::kCutlass, I::kCutlass, I::kCutlass, I::kCublasLt, I::kCutlass},
                  {Pass::kFprop, Pass::kFprop, Pass::kDgrad, Pass::kWgrad, Pass::kDgrad});
  EXPECT_EQ(implementation_summary(mode),
            "Implementations (cuBLASLt unless listed): FP8Block: cutlass 4 of 5 cases (Fprop, "
            "Dgrad), cublaslt 1 (Wgrad).");
}

TEST(ImplementationReport, OneImplementationIsACount) {
  using I = Implementation;
  EXPECT_EQ(implementation_summary(shapes_mode({I::kCutlass}, {Pass::kFprop})),
            "Implementations (cuBLASLt unless listed): FP8Block: cutlass 1 case.");
}

TEST(ImplementationReport, UnknownIsListedOnlyBesideAChosenImplementation) {
  using I = Implementation;
  // cuBLASLt and unlabelled cases only: a run from before the choice, or one that kept cuBLASLt.
  EXPECT_EQ(implementation_summary(
                shapes_mode({I::kCublasLt, I::kUnknown}, {Pass::kFprop, Pass::kDgrad})),
            std::nullopt);
  EXPECT_EQ(implementation_summary(shapes_mode({I::kCutlass, I::kUnknown, I::kCutlass},
                                               {Pass::kFprop, Pass::kFprop, Pass::kFprop})),
            "Implementations (cuBLASLt unless listed): FP8Block: cutlass 2 of 3 cases, unknown 1.");
}

TEST(ImplementationReport, NaCellsAreNotCounted) {
  ShapesModeReport mode = shapes_mode({Implementation::kCutlass, Implementation::kCutlass},
                                      {Pass::kFprop, Pass::kFprop});
  mode.rows[1].ms[Precision::kFP8Block] = ReportValue::na("skipped");
  EXPECT_EQ(implementation_summary(mode),
            "Implementations (cuBLASLt unless listed): FP8Block: cutlass 1 case.");
}

TEST(ImplementationReport, MoeRunCountsDenseAndGroupedGemmsApart) {
  const Report report = report_of({"moe_mixed_implementations_ms.json"});
  ASSERT_TRUE(report.model.has_value());
  ASSERT_EQ(report.model->modes.size(), 2u);
  EXPECT_EQ(implementation_summary(report.model->modes[0], report.model->op_layers),
            "Implementations (cuBLASLt unless listed): BF16 grouped: cublas 4 of 6 cases (Fprop, "
            "Dgrad), loop 2 (Wgrad); "
            "FP8Block dense: cutlass 19 of 27 cases, cublaslt 8 (Wgrad); FP8Block grouped: "
            "cutlass 6 cases.");
  // Prequant: FP8Block's dense cases all on cuBLASLt; its Fprop/expert_up skipped.
  EXPECT_EQ(implementation_summary(report.model->modes[1], report.model->op_layers),
            "Implementations (cuBLASLt unless listed): BF16 grouped: cublas 4 of 6 cases (Fprop, "
            "Dgrad), loop 2 (Wgrad); "
            "FP8Block grouped: loop 5 cases.");
}

TEST(ImplementationReport, NothingForRunsWithoutAChosenImplementation) {
  for (const char* file : {"model_gb17_ns.json", "model_gb18_ms_repetitions.json",
                           "moe_deepseek_like_ms.json", "h200_te_tutorial_sweep.json"}) {
    const Report report = report_of({file});
    for (const ModelModeReport& mode : report.model->modes)
      EXPECT_EQ(implementation_summary(mode, report.model->op_layers), std::nullopt) << file;
  }
  const Report shapes = report_of({"shapes_gb18_ns.json"});
  for (const ShapesModeReport& mode : shapes.shapes->modes)
    EXPECT_EQ(implementation_summary(mode), std::nullopt);
}

}  // namespace
}  // namespace gemmscope::report
