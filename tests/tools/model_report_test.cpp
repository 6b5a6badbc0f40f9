#include "tools/report/model_report.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using testing::report_of;

const ModelModeReport& mode_of(const Report& report, Mode mode) {
  for (const ModelModeReport& m : report.model->modes) {
    if (m.mode == mode)
      return m;
  }
  throw std::runtime_error("no mode " + std::string(mode_name(mode)));
}

// Fixture times: BF16 per layer 6 (Fprop) + 6.5 (Dgrad) + 6.5 (Wgrad) = 19 ms; FP8Current
// autocast runs at 0.625 of BF16, prequant 0.5; FP8Delayed autocast 0.75; MXFP8 (emulated)
// autocast 1.25, prequant 1.0; 4 layers.
TEST(ModelReport, CompleteRunGivesPassLayerModelAndSpeedup) {
  const Report report = report_of({"model_gb17_ns.json"});
  ASSERT_TRUE(report.model.has_value());
  EXPECT_FALSE(report.shapes.has_value());
  ASSERT_EQ(report.model->modes.size(), 2u);
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  EXPECT_EQ(autocast.precisions,
            (std::vector<Precision>{Precision::kBF16, Precision::kFP8Current,
                                    Precision::kFP8Delayed, Precision::kMXFP8}));
  EXPECT_EQ(autocast.per_op_ms.at(Pass::kWgrad).at("qkv").at(Precision::kFP8Current).number,
            1.09375);
  EXPECT_EQ(autocast.op_shapes.at(Pass::kWgrad).at("qkv"), (GemmShape{1024, 2048, 3072}));
  EXPECT_EQ(autocast.per_pass_ms.at(Pass::kFprop).at(Precision::kBF16).number, 6.0);
  EXPECT_EQ(autocast.per_pass_ms.at(Pass::kDgrad).at(Precision::kFP8Current).number, 4.0625);
  EXPECT_EQ(autocast.fprop_dgrad_ms.at(Precision::kBF16).number, 12.5);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kBF16).number, 19.0);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kFP8Current).number, 11.875);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kFP8Delayed).number, 14.25);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).number, 76.0);
  EXPECT_EQ(autocast.model_ms.at(Precision::kFP8Current).number, 47.5);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kBF16).number, 1.0);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Current).number, 19.0 / 11.875);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Delayed).number, 19.0 / 14.25);

  const ModelModeReport& prequant = mode_of(report, Mode::kPrequant);
  // FP8Delayed has no prequant cases by design: no column, not a missing case.
  EXPECT_EQ(prequant.precisions,
            (std::vector<Precision>{Precision::kBF16, Precision::kFP8Current, Precision::kMXFP8}));
  EXPECT_EQ(prequant.per_layer_ms.at(Precision::kFP8Current).number, 9.5);
  EXPECT_EQ(prequant.speedup_vs_bf16.at(Precision::kFP8Current).number, 2.0);
}

TEST(ModelReport, EmulatedPrecisionsAreShownMarkedButNotCompared) {
  const ModelModeReport autocast = mode_of(report_of({"model_gb17_ns.json"}), Mode::kAutocast);
  const ReportValue layer = autocast.per_layer_ms.at(Precision::kMXFP8);
  EXPECT_EQ(layer.number, 23.75);
  EXPECT_TRUE(layer.emulated);
  const ReportValue speedup = autocast.speedup_vs_bf16.at(Precision::kMXFP8);
  EXPECT_FALSE(speedup.available());
  EXPECT_EQ(speedup.na_reason, kEmulatedReason);
}

TEST(ModelReport, IncludeEmulatedComparesThemStillMarked) {
  const ModelModeReport autocast =
      mode_of(report_of({"model_gb17_ns.json"}, /*include_emulated=*/true), Mode::kAutocast);
  const ReportValue speedup = autocast.speedup_vs_bf16.at(Precision::kMXFP8);
  EXPECT_EQ(speedup.number, 19.0 / 23.75);
  EXPECT_TRUE(speedup.emulated);
}

TEST(ModelReport, ASkippedCaseMakesItsPassAndLayerTotalsNa) {
  const Report report = report_of({"model_gb18_ms_repetitions.json"});
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  const auto& block = Precision::kFP8Block;
  EXPECT_EQ(autocast.per_op_ms.at(Pass::kDgrad).at("mlp_up").at(block).na_reason,
            "skipped: no cuBLASLt algorithm for this 1x128 layout");
  EXPECT_EQ(autocast.per_pass_ms.at(Pass::kFprop).at(block).number, 4.5);
  EXPECT_EQ(autocast.per_pass_ms.at(Pass::kWgrad).at(block).number, 4.875);
  for (const PrecisionValues* totals :
       {&autocast.per_pass_ms.at(Pass::kDgrad), &autocast.fprop_dgrad_ms, &autocast.per_layer_ms,
        &autocast.model_ms, &autocast.speedup_vs_bf16}) {
    EXPECT_FALSE(totals->at(block).available());
    EXPECT_EQ(totals->at(block).na_reason, kIncompleteReason);
  }
}

TEST(ModelReport, AMissingCaseMakesTotalsNaNeverAPartialSum) {
  const ModelModeReport prequant =
      mode_of(report_of({"model_gb18_ms_repetitions.json"}), Mode::kPrequant);
  const auto& block = Precision::kFP8Block;
  EXPECT_EQ(prequant.per_op_ms.at(Pass::kWgrad).at("mlp_down").at(block).na_reason, kMissingReason);
  EXPECT_EQ(prequant.per_pass_ms.at(Pass::kDgrad).at(block).number, 3.25);
  EXPECT_FALSE(prequant.per_pass_ms.at(Pass::kWgrad).at(block).available());
  EXPECT_FALSE(prequant.per_layer_ms.at(block).available());
  EXPECT_EQ(prequant.per_layer_ms.at(Precision::kBF16).number, 19.0);
}

TEST(ModelReport, APrecisionWhoseEveryCaseFailedIsAllNa) {
  const ModelModeReport autocast =
      mode_of(report_of({"model_gb18_ms_repetitions.json"}), Mode::kAutocast);
  EXPECT_EQ(autocast.precisions,
            (std::vector<Precision>{Precision::kBF16, Precision::kFP8Block, Precision::kNVFP4}));
  EXPECT_FALSE(autocast.per_layer_ms.at(Precision::kNVFP4).available());
  EXPECT_EQ(autocast.per_op_ms.at(Pass::kFprop).at("qkv").at(Precision::kNVFP4).na_reason,
            "failed: cuBLASLt: VEC16_UE4M3 scales need sm_100 or newer "
            "(CUBLAS_STATUS_NOT_SUPPORTED)");
}

TEST(ModelReport, NoBaselineAndNoLayerCountGiveNaWithTheReason) {
  const Report report = report_of({"model_no_baseline_us.json"});
  ASSERT_EQ(report.model->modes.size(), 1u);
  const ModelModeReport& autocast = report.model->modes[0];
  EXPECT_EQ(autocast.precisions, (std::vector<Precision>{Precision::kFP8Current}));
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kFP8Current).number, 11.875);
  EXPECT_EQ(autocast.model_ms.at(Precision::kFP8Current).na_reason,
            "num_hidden_layers is not in the JSON context");
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Current).na_reason, kNoBaselineReason);
}

TEST(ModelReport, AReplacedCaseChangesTheTotals) {
  const ModelModeReport autocast =
      mode_of(report_of({"model_gb17_ns.json", "model_replace_one_case.json"}), Mode::kAutocast);
  EXPECT_EQ(autocast.per_pass_ms.at(Pass::kFprop).at(Precision::kFP8Current).number, 3.3125);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kFP8Current).number, 11.4375);
}

RunContext with_layers(const std::string& layers) {
  return RunContext(std::map<std::string, std::string>{{"num_hidden_layers", layers}});
}

TEST(ModelReport, LayerCountThatIsNotAPositiveIntegerIsNamed) {
  for (const char* layers : {"0", "-2", "24 layers", ""}) {
    const LayerCount count = layer_count(with_layers(layers));
    EXPECT_FALSE(count.layers.has_value()) << layers;
  }
  EXPECT_EQ(layer_count(with_layers("24 layers")).na_reason,
            "num_hidden_layers '24 layers' is not a positive integer");
  EXPECT_EQ(layer_count(with_layers("32")).layers, 32);
}

TEST(ModelReport, OnlyBF16GivesANativeSection) {
  const BenchmarkFile file = parse_benchmark_json(
      R"({"benchmarks": [{"name": "BF16/Fprop/qkv/native/M:8/K:8/N:8", "real_time": 1,
          "time_unit": "ms"}]})",
      "bf16.json");
  const Report report = build_report(merge_files({file}), {});
  ASSERT_EQ(report.model->modes.size(), 1u);
  EXPECT_EQ(report.model->modes[0].mode, Mode::kNative);
  EXPECT_EQ(report.model->modes[0].per_pass_ms.at(Pass::kFprop).at(Precision::kBF16).na_reason,
            kIncompleteReason);
}

}  // namespace
}  // namespace gemmscope::report
