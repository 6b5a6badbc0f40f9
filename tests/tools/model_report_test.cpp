#include "tools/report/model_report.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// The mixture-of-experts fixture (fixtures/README.md): test-moe, MLA attention in 61 layers, a
// dense MLP in 3, a shared expert and 32 routed experts (G:32) in 58. BF16 per pass: attention
// 1.125 ms, MLP 1.5, shared 0.25, experts 3.0 (Fprop), 3.0 (Dgrad), 4.0 (Wgrad). FP8Block
// autocast: 0.75 of BF16, 0.625 for the experts; prequant 0.5, Fprop/expert_up skipped.
constexpr const char* kMoeRun = "moe_deepseek_like_ms.json";

TEST(ModelReport, MoeRunCountsEachOpTimesTheLayersThatHoldIt) {
  const Report report = report_of({kMoeRun});
  const OpLayers& layers = report.model->op_layers;
  EXPECT_EQ(layers.ops, (std::vector<std::string>{"q_a", "q_b", "kv_a", "kv_b", "attn_out",
                                                  "mlp_up", "mlp_down", "shared_up", "shared_down",
                                                  "expert_up", "expert_down"}));
  EXPECT_TRUE(layers.mixed);
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  EXPECT_EQ(autocast.precisions, (std::vector<Precision>{Precision::kBF16, Precision::kFP8Block}));
  EXPECT_EQ(autocast.op_groups.at(Pass::kWgrad).at("expert_up"), 32);
  EXPECT_EQ(autocast.op_groups.at(Pass::kWgrad).at("shared_up"), std::nullopt);
  EXPECT_EQ(autocast.op_shapes.at(Pass::kWgrad).at("expert_down"), (GemmShape{256, 8192, 1024}));

  const auto bf16 = Precision::kBF16;
  const auto block = Precision::kFP8Block;
  EXPECT_EQ(autocast.model_pass_ms.at(Pass::kFprop).at(bf16).number,
            61 * 1.125 + 3 * 1.5 + 58 * (0.25 + 3.0));
  EXPECT_EQ(autocast.model_pass_ms.at(Pass::kFprop).at(bf16).number, 261.625);
  EXPECT_EQ(autocast.model_pass_ms.at(Pass::kWgrad).at(bf16).number, 319.625);
  EXPECT_EQ(autocast.model_fprop_dgrad_ms.at(bf16).number, 523.25);
  EXPECT_EQ(autocast.model_ms.at(bf16).number, 842.875);
  // One layer of each kind: attention and its own ops.
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kDense).at(bf16).number, 3 * (1.125 + 1.5));
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kMoe).at(bf16).number, 14.125);
  EXPECT_EQ(autocast.model_ms.at(bf16).number, 3 * 7.875 + 58 * 14.125);
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kDense).at(block).number, 5.90625);
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kMoe).at(block).number, 9.34375);
  EXPECT_EQ(autocast.model_ms.at(block).number, 61 * 2.53125 + 3 * 3.375 + 58 * 6.8125);
  EXPECT_EQ(autocast.model_ms.at(block).number, 559.65625);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(bf16).number, 1.0);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(block).number, 842.875 / 559.65625);
  // No layer has every op: a one-layer total would add a dense and a MoE layer's MLPs.
  for (const PrecisionValues* one_layer :
       {&autocast.per_pass_ms.at(Pass::kFprop), &autocast.fprop_dgrad_ms, &autocast.per_layer_ms}) {
    EXPECT_EQ(one_layer->at(bf16).na_reason, kLayerKindsReason);
  }
}

TEST(ModelReport, MoeRunWithASkippedExpertCaseKeepsTheDenseLayerOnly) {
  const ModelModeReport prequant = mode_of(report_of({kMoeRun}), Mode::kPrequant);
  const auto block = Precision::kFP8Block;
  EXPECT_EQ(prequant.per_op_ms.at(Pass::kFprop).at("expert_up").at(block).na_reason,
            "skipped: grouped loop: no cuBLASLt algorithm for this 1x128 layout");
  EXPECT_EQ(prequant.per_kind_ms.at(LayerKind::kDense).at(block).number, 3.9375);
  EXPECT_EQ(prequant.model_pass_ms.at(Pass::kDgrad).at(block).number, 130.8125);
  for (const ReportValue& total :
       {prequant.per_kind_ms.at(LayerKind::kMoe).at(block),
        prequant.model_pass_ms.at(Pass::kFprop).at(block), prequant.model_ms.at(block),
        prequant.speedup_vs_bf16.at(block)}) {
    EXPECT_EQ(total.na_reason, kIncompleteReason);
  }
  EXPECT_EQ(prequant.speedup_vs_bf16.at(Precision::kBF16).number, 1.0);
}

BenchmarkFile moe_file_without(const std::string& name_part) {
  BenchmarkFile file = load_benchmark_file(testing::fixture_path(kMoeRun));
  file.path = kMoeRun;
  file.entries.erase(std::remove_if(file.entries.begin(), file.entries.end(),
                                    [&](const BenchmarkEntry& entry) {
                                      return entry.name.find(name_part) != std::string::npos;
                                    }),
                     file.entries.end());
  return file;
}

TEST(ModelReport, AnOpThatOpLayersListsWithoutCasesMakesTheTotalsNa) {
  const Report report = build_report(merge_files({moe_file_without("/shared_up/")}), {});
  const ModelModeReport& autocast = report.model->modes[0];
  EXPECT_EQ(autocast.per_op_ms.at(Pass::kFprop).at("shared_up").at(Precision::kBF16).na_reason,
            kMissingReason);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).na_reason, kIncompleteReason);
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kMoe).at(Precision::kBF16).na_reason,
            kIncompleteReason);
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kDense).at(Precision::kBF16).number, 7.875);
}

TEST(ModelReport, AMoeRunWithoutOpLayersHasItsKindsButNoModelTotal) {
  BenchmarkFile file = moe_file_without("no entry has this");
  file.context.erase("op_layers");
  const Report report = build_report(merge_files({file}), {});
  const ModelModeReport& autocast = report.model->modes[0];
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kMoe).at(Precision::kBF16).number, 14.125);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).na_reason, report.model->op_layers.na_reason);
  EXPECT_NE(report.model->op_layers.na_reason.find("op_layers is not in the JSON context"),
            std::string::npos);
  EXPECT_FALSE(autocast.speedup_vs_bf16.at(Precision::kFP8Block).available());
}

BenchmarkFile dense_file_with_op_layers(const std::string& op_layers) {
  BenchmarkFile file = load_benchmark_file(testing::fixture_path("model_gb17_ns.json"));
  file.context["op_layers"] = op_layers;
  return file;
}

TEST(ModelReport, ADenseRunWithOpLayersHasTodaysTotals) {
  const Report report = build_report(
      merge_files({dense_file_with_op_layers("qkv=4 attn_out=4 mlp_up=4 mlp_down=4")}), {});
  EXPECT_FALSE(report.model->op_layers.mixed);
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kBF16).number, 19.0);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).number, 76.0);
  EXPECT_EQ(autocast.model_pass_ms.at(Pass::kFprop).at(Precision::kBF16).number, 24.0);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Current).number, 19.0 / 11.875);
  EXPECT_TRUE(autocast.per_kind_ms.empty());
}

TEST(ModelReport, OpsWithDifferentCountsAreEachCountedTheirOwnTimes) {
  // Attention (qkv, attn_out) in 4 layers, 6.25 ms a layer in BF16; the MLP in 2, 12.75 ms.
  const Report report = build_report(
      merge_files({dense_file_with_op_layers("qkv=4 attn_out=4 mlp_up=2 mlp_down=2")}), {});
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).number, 4 * 6.25 + 2 * 12.75);
  EXPECT_EQ(autocast.model_ms.at(Precision::kFP8Current).number, 0.625 * (4 * 6.25 + 2 * 12.75));
  EXPECT_EQ(autocast.per_kind_ms.at(LayerKind::kDense).at(Precision::kBF16).number, 19.0);
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Current).number, 1.6);
}

TEST(ModelReport, MalformedOpLayersMakesTheModelTotalNaWithTheReason) {
  const Report report = build_report(
      merge_files({dense_file_with_op_layers("qkv=4 attn_out=4 mlp_up=4 mlp_down=x")}), {});
  const ModelModeReport& autocast = mode_of(report, Mode::kAutocast);
  EXPECT_EQ(autocast.per_layer_ms.at(Precision::kBF16).number, 19.0);
  EXPECT_EQ(autocast.model_ms.at(Precision::kBF16).na_reason,
            "op_layers 'qkv=4 attn_out=4 mlp_up=4 mlp_down=x' is malformed: layers of mlp_down "
            "must be a positive integer, got 'x'");
  EXPECT_EQ(autocast.speedup_vs_bf16.at(Precision::kFP8Current).number, 19.0 / 11.875)
      << "the per-layer ratio needs no layer count";
}

TEST(ModelReport, AMoeModelWhoseOpsShareOneCountKeepsTheOneLayerTotal) {
  std::string entries;
  for (const char* op : {"qkv", "attn_out", "expert_up/native/G:4", "expert_down/native/G:4"}) {
    for (const char* pass : {"Fprop", "Dgrad", "Wgrad"}) {
      const std::string name = std::string("BF16/") + pass + "/" + op +
                               (std::string(op).find('/') == std::string::npos ? "/native" : "") +
                               "/M:8/K:8/N:8";
      entries += std::string(entries.empty() ? "" : ",") + R"({"name": ")" + name +
                 R"(", "real_time": 1, "time_unit": "ms"})";
    }
  }
  const BenchmarkFile file = parse_benchmark_json(
      R"({"context": {"op_layers": "qkv=32 attn_out=32 expert_up=32 expert_down=32"},
          "benchmarks": [)" +
          entries + "]}",
      "mixtral.json");
  const Report report = build_report(merge_files({file}), {});
  ASSERT_TRUE(report.model.has_value());
  EXPECT_FALSE(report.model->op_layers.mixed);
  const ModelModeReport& native = report.model->modes[0];
  EXPECT_EQ(native.per_layer_ms.at(Precision::kBF16).number, 12.0);
  EXPECT_EQ(native.model_ms.at(Precision::kBF16).number, 12.0 * 32);
  EXPECT_TRUE(native.per_kind_ms.empty());
}

}  // namespace
}  // namespace gemmscope::report
