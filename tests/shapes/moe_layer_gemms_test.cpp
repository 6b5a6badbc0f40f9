// The ops and GEMMs of mixture-of-experts and MLA models: which ops, in how many layers, their
// widths, and the grouped GEMMs of the routed experts, each checked against hand-computed
// numbers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shapes/layer_gemms.h"
#include "shapes/presets.h"
#include "shapes/routing.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct ExpectedOp {
  std::string op;
  int64_t in_features;
  int64_t out_features;
  int64_t layers;
};

void expect_ops(const ModelConfig& config, const std::vector<ExpectedOp>& expected) {
  const std::vector<LinearOp> ops = linear_ops(config);
  ASSERT_EQ(ops.size(), expected.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(expected[i].op);
    EXPECT_EQ(ops[i].op, expected[i].op);
    EXPECT_EQ(ops[i].in_features, expected[i].in_features);
    EXPECT_EQ(ops[i].out_features, expected[i].out_features);
    EXPECT_EQ(ops[i].layers, expected[i].layers);
    EXPECT_EQ(ops[i].grouped, is_grouped_op(expected[i].op));
  }
}

const LayerGemm& find_gemm(const std::vector<LayerGemm>& gemms, Pass pass, const std::string& op) {
  for (const LayerGemm& gemm : gemms) {
    if (gemm.pass == pass && gemm.op == op)
      return gemm;
  }
  ADD_FAILURE() << "no " << pass_name(pass) << "/" << op;
  static const LayerGemm kNone;
  return kNone;
}

TEST(LayerOps, TokensAreUniqueAndOnlyExpertOpsAreGrouped) {
  for (size_t i = 0; i < kLayerOps.size(); ++i) {
    for (size_t j = i + 1; j < kLayerOps.size(); ++j)
      EXPECT_NE(kLayerOps[i], kLayerOps[j]);
    EXPECT_EQ(is_grouped_op(kLayerOps[i]),
              kLayerOps[i] == "expert_up" || kLayerOps[i] == "expert_down")
        << kLayerOps[i];
  }
  EXPECT_FALSE(is_grouped_op("gemm0"));
}

TEST(LayerOps, EveryPresetListsItsOpsInKLayerOpsOrder) {
  for (const ModelPreset& preset : model_presets()) {
    SCOPED_TRACE(preset.name);
    size_t at = 0;
    for (const LinearOp& op : linear_ops(preset.config)) {
      while (at < kLayerOps.size() && kLayerOps[at] != op.op)
        ++at;
      EXPECT_LT(at, kLayerOps.size()) << op.op << " out of order or unknown";
      EXPECT_GT(op.layers, 0) << op.op;
    }
  }
}

TEST(DenseModels, EveryOpIsInEveryLayerAndNothingIsGrouped) {
  for (const char* name : {"te-tutorial", "llama3-8b", "llama3-70b", "llama3.1-405b"}) {
    SCOPED_TRACE(name);
    const ModelConfig& config = find_preset(name)->config;
    const std::vector<LayerGemm> gemms = layer_gemms(config);
    ASSERT_EQ(gemms.size(), 12u);
    for (const LayerGemm& gemm : gemms) {
      EXPECT_EQ(gemm.layers, config.num_hidden_layers);
      EXPECT_FALSE(gemm.grouped());
      EXPECT_EQ(gemm.dims.tokens, config.tokens());
    }
  }
}

TEST(DenseModels, AGivenHeadDimSetsTheAttentionWidths) {
  ModelConfig config;  // 32 heads of hidden / heads = 128 channels, unless given
  config.attention_head_dim = 64;
  // qkv (32 + 2 x 32) x 64; attn_out reads 32 x 64.
  expect_ops(config, {{"qkv", 4096, 6144, 24},
                      {"attn_out", 2048, 4096, 24},
                      {"mlp_up", 4096, 16384, 24},
                      {"mlp_down", 16384, 4096, 24}});
}

TEST(Qwen3ThirtyB, BalancedExpertGemms) {
  const ModelConfig& config = find_preset("qwen3-30b-a3b")->config;
  // qkv (32 + 2 x 4) x head_dim 128 = 5120; attn_out reads 32 x 128 = 4096 (not hidden 2048);
  // expert_up 2 x 768 (gated); no dense layer, no shared expert.
  expect_ops(config, {{"qkv", 2048, 5120, 48},
                      {"attn_out", 4096, 2048, 48},
                      {"expert_up", 2048, 1536, 48},
                      {"expert_down", 768, 2048, 48}});
  const std::vector<LayerGemm> gemms = layer_gemms(config, route_tokens(config, Routing{}).rows);
  ASSERT_EQ(gemms.size(), 12u);
  // 4096 tokens x top-8 = 32768 routed rows, 256 for each of the 128 experts.
  for (const char* op : {"expert_up", "expert_down"}) {
    for (Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
      const LayerGemm& gemm = find_gemm(gemms, pass, op);
      ASSERT_EQ(gemm.group_rows.size(), 128u) << op;
      EXPECT_THAT(gemm.group_rows, Each(256));
      EXPECT_EQ(gemm.dims.tokens, 32768);
      EXPECT_EQ(gemm.layers, 48);
    }
  }
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "expert_up").shape, (GemmShape{32768, 2048, 1536}));
  EXPECT_EQ(find_gemm(gemms, Pass::kDgrad, "expert_up").shape, (GemmShape{32768, 1536, 2048}));
  EXPECT_EQ(find_gemm(gemms, Pass::kWgrad, "expert_up").shape, (GemmShape{2048, 32768, 1536}));
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "expert_down").shape, (GemmShape{32768, 768, 2048}));
  EXPECT_EQ(find_gemm(gemms, Pass::kDgrad, "expert_down").shape, (GemmShape{32768, 2048, 768}));
  EXPECT_EQ(find_gemm(gemms, Pass::kWgrad, "expert_down").shape, (GemmShape{768, 32768, 2048}));
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "qkv").shape, (GemmShape{4096, 2048, 5120}));
  EXPECT_FALSE(find_gemm(gemms, Pass::kFprop, "qkv").grouped());
}

TEST(Qwen3ThirtyB, ExpertParallelEightGivesSixteenGroups) {
  ModelConfig config = find_preset("qwen3-30b-a3b")->config;
  config.expert_parallel = 8;
  const RankRouting routing = route_tokens(config, Routing{});
  const std::vector<LayerGemm> gemms = layer_gemms(config, routing.rows);
  const LayerGemm& up = find_gemm(gemms, Pass::kFprop, "expert_up");
  // 8 ranks x 4096 tokens x top-8 over 128 experts: 2048 rows each; a rank holds 16 experts
  // and so receives 4096 x 8 rows, as many as with expert_parallel 1.
  EXPECT_EQ(up.group_rows, std::vector<int64_t>(16, 2048));
  EXPECT_EQ(up.shape, (GemmShape{32768, 2048, 1536}));
  // Attention is not split by expert parallelism: each rank has its own micro-batch.
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "qkv").shape, (GemmShape{4096, 2048, 5120}));
}

TEST(DeepSeekV3, OpsLayersAndMlaWidths) {
  const ModelConfig& config = find_preset("deepseek-v3")->config;
  expect_ops(config, {
                         {"q_a", 7168, 1536, 61},
                         {"q_b", 1536, 128 * (128 + 64), 61},
                         {"kv_a", 7168, 512 + 64, 61},
                         {"kv_b", 512, 128 * (128 + 128), 61},
                         {"attn_out", 128 * 128, 7168, 61},
                         {"mlp_up", 7168, 2 * 18432, 3},
                         {"mlp_down", 18432, 7168, 3},
                         {"shared_up", 7168, 2 * 2048, 58},
                         {"shared_down", 2048, 7168, 58},
                         {"expert_up", 7168, 2 * 2048, 58},
                         {"expert_down", 2048, 7168, 58},
                     });
}

TEST(DeepSeekV3, TensorParallelSplitsAllButTheDownProjectionsAndTheExperts) {
  ModelConfig config = find_preset("deepseek-v3")->config;
  config.tensor_parallel = 8;
  expect_ops(config, {
                         {"q_a", 7168, 1536, 61},                // replicated
                         {"q_b", 1536, 128 * 192 / 8, 61},       // column-parallel
                         {"kv_a", 7168, 576, 61},                // replicated
                         {"kv_b", 512, 128 * 256 / 8, 61},       // column-parallel
                         {"attn_out", 128 * 128 / 8, 7168, 61},  // row-parallel
                         {"mlp_up", 7168, 2 * 18432 / 8, 3},     // column-parallel
                         {"mlp_down", 18432 / 8, 7168, 3},       // row-parallel
                         {"shared_up", 7168, 2 * 2048 / 8, 58},  // column-parallel
                         {"shared_down", 2048 / 8, 7168, 58},    // row-parallel
                         {"expert_up", 7168, 2 * 2048, 58},      // expert-parallel only
                         {"expert_down", 2048, 7168, 58},
                     });
}

TEST(DeepSeekV3, BalancedExpertGemmsOnEightRanks) {
  const ModelConfig& config = find_preset("deepseek-v3")->config;
  const std::vector<LayerGemm> gemms = layer_gemms(config, route_tokens(config, Routing{}).rows);
  ASSERT_EQ(gemms.size(), 33u);  // 11 ops x 3 passes
  // 8 ranks x 4096 tokens x top-8 over 256 experts: 1024 rows each, 32 experts on a rank.
  const LayerGemm& up = find_gemm(gemms, Pass::kFprop, "expert_up");
  EXPECT_EQ(up.group_rows, std::vector<int64_t>(32, 1024));
  EXPECT_EQ(up.shape, (GemmShape{32768, 7168, 4096}));
  EXPECT_EQ(find_gemm(gemms, Pass::kWgrad, "expert_down").shape, (GemmShape{2048, 32768, 7168}));
  // The shared expert sees every token of the rank, as a dense MLP does.
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "shared_up").shape, (GemmShape{4096, 7168, 4096}));
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "mlp_down").layers, 3);
  EXPECT_EQ(find_gemm(gemms, Pass::kDgrad, "kv_b").shape, (GemmShape{4096, 32768, 512}));
}

TEST(Mla, WithoutAQueryLatentTheQueryIsOneProjection) {
  ModelConfig config = find_preset("deepseek-v3")->config;
  config.q_lora_rank = 0;
  const std::vector<LinearOp> ops = linear_ops(config);
  ASSERT_GE(ops.size(), 1u);
  EXPECT_EQ(ops[0].op, "q_b");  // no q_a
  EXPECT_EQ(ops[0].in_features, 7168);
  EXPECT_EQ(ops[0].out_features, 128 * 192);
}

TEST(MixtralAndGptOss, Widths) {
  expect_ops(find_preset("mixtral-8x7b")->config, {{"qkv", 4096, 6144, 32},
                                                   {"attn_out", 4096, 4096, 32},
                                                   {"expert_up", 4096, 28672, 32},
                                                   {"expert_down", 14336, 4096, 32}});
  // gpt-oss: (64 + 16) x head_dim 64 = 5120; attn_out reads 64 x 64 = 4096.
  expect_ops(find_preset("gpt-oss-120b")->config, {{"qkv", 2880, 5120, 36},
                                                   {"attn_out", 4096, 2880, 36},
                                                   {"expert_up", 2880, 5760, 36},
                                                   {"expert_down", 2880, 2880, 36}});
}

TEST(GroupedGemms, ExpertsWithoutRowsAreNotGroups) {
  ModelConfig config = find_preset("mixtral-8x7b")->config;
  config.expert_parallel = 2;  // 4 experts on the rank
  const std::vector<LayerGemm> gemms = layer_gemms(config, {5, 0, 3, 0});
  for (const LayerGemm& gemm : gemms) {
    if (!is_grouped_op(gemm.op)) {
      EXPECT_FALSE(gemm.grouped()) << gemm.op;
      EXPECT_EQ(gemm.dims.tokens, 4096) << gemm.op;
      continue;
    }
    EXPECT_THAT(gemm.group_rows, ElementsAre(5, 3)) << gemm.op;
    EXPECT_EQ(gemm.dims.tokens, 8) << gemm.op;
    EXPECT_EQ(gemm.shape, gemm_shape(gemm.pass, gemm.dims)) << gemm.op;
  }
}

TEST(GroupedGemms, PassesComeInOrderWithEveryOpOnce) {
  const ModelConfig& config = find_preset("deepseek-v3")->config;
  const std::vector<LinearOp> ops = linear_ops(config);
  const std::vector<LayerGemm> gemms = layer_gemms(config);  // balanced when no rows are given
  ASSERT_EQ(gemms.size(), 3 * ops.size());
  const Pass passes[] = {Pass::kFprop, Pass::kDgrad, Pass::kWgrad};
  for (size_t i = 0; i < gemms.size(); ++i) {
    EXPECT_EQ(gemms[i].pass, passes[i / ops.size()]) << i;
    EXPECT_EQ(gemms[i].op, ops[i % ops.size()].op) << i;
    EXPECT_EQ(gemms[i].layers, ops[i % ops.size()].layers) << i;
  }
  EXPECT_EQ(find_gemm(gemms, Pass::kFprop, "expert_up").group_rows, std::vector<int64_t>(32, 1024));
}

TEST(GroupedGemmsRefusal, BadExpertRows) {
  ModelConfig config = find_preset("mixtral-8x7b")->config;  // 8 experts on the one rank
  EXPECT_THAT(invalid_argument_message([&] {
                layer_gemms(config, {1, 2, 3});
              }),
              HasSubstr("3 expert row counts for a rank that holds 8 experts"));
  EXPECT_THAT(invalid_argument_message([&] {
                layer_gemms(config, {1, 1, 1, 1, 1, 1, 1, -1});
              }),
              HasSubstr("non-negative"));
  EXPECT_THAT(invalid_argument_message([&] { layer_gemms(config, std::vector<int64_t>(8, 0)); }),
              HasSubstr("no rows are routed"));
  EXPECT_THAT(
      invalid_argument_message([&] { layer_gemms(config, std::vector<int64_t>(8, 1073741824)); }),
      HasSubstr("sum to at most 2147483647"));
  EXPECT_THAT(invalid_argument_message([] { layer_gemms(ModelConfig{}, {4}); }),
              HasSubstr("expert rows given for a dense model"));
}

}  // namespace
}  // namespace gemmscope
