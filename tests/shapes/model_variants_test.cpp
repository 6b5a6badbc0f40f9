// GQA, gated-MLP and tensor-parallel shapes, each checked against hand-computed widths.

#include <gtest/gtest.h>

#include <vector>

#include "shapes/layer_gemms.h"
#include "shapes/model_config.h"
#include "shapes/presets.h"

namespace gemmscope {
namespace {

struct Widths {
  int64_t in_features;
  int64_t out_features;
};

void expect_op_widths(const ModelConfig& config, const std::vector<Widths>& expected) {
  const std::vector<LinearOp> ops = linear_ops(config);
  ASSERT_EQ(ops.size(), expected.size());
  const char* const names[] = {"qkv", "attn_out", "mlp_up", "mlp_down"};
  for (size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE(names[i]);
    EXPECT_EQ(ops[i].op, names[i]);
    EXPECT_EQ(ops[i].in_features, expected[i].in_features);
    EXPECT_EQ(ops[i].out_features, expected[i].out_features);
  }
}

TEST(GroupedQueryAttention, QkvWidthCountsQueryHeadsPlusTwoKvHeadGroups) {
  ModelConfig config;  // 32 heads of 128 channels
  config.num_key_value_heads = 8;
  // (32 + 2 * 8) * 128 = 6144; nothing else changes.
  expect_op_widths(config, {{4096, 6144}, {4096, 4096}, {4096, 16384}, {16384, 4096}});
}

TEST(GroupedQueryAttention, OneKvHeadIsMultiQueryAttention) {
  ModelConfig config;
  config.num_key_value_heads = 1;
  expect_op_widths(config, {{4096, (32 + 2) * 128}, {4096, 4096}, {4096, 16384}, {16384, 4096}});
}

TEST(GatedMlp, UpProjectionProducesGateAndValue) {
  ModelConfig config;
  config.gated_mlp = true;
  // mlp_up doubles to 2 * 16384; mlp_down still reads 16384.
  expect_op_widths(config, {{4096, 12288}, {4096, 4096}, {4096, 32768}, {16384, 4096}});
}

TEST(TensorParallel, SplitsQkvAndMlpUpOutputsAndAttnOutAndMlpDownInputs) {
  ModelConfig config;
  config.tensor_parallel = 4;
  expect_op_widths(config, {{4096, 3072}, {1024, 4096}, {4096, 4096}, {4096, 4096}});
}

TEST(TensorParallel, Llama70bOnEightRanks) {
  ModelConfig config = find_preset("llama3-70b")->config;
  config.tensor_parallel = 8;
  // qkv (64 + 16) * 128 / 8 = 1280; attn_out 8192 / 8; mlp_up 2 * 28672 / 8; mlp_down 28672 / 8.
  expect_op_widths(config, {{8192, 1280}, {1024, 8192}, {8192, 7168}, {3584, 8192}});
  const std::vector<LayerGemm> gemms = layer_gemms(config);
  ASSERT_EQ(gemms.size(), 12u);
  EXPECT_EQ(gemms[9].op, "attn_out");
  EXPECT_EQ(gemms[9].pass, Pass::kWgrad);
  EXPECT_EQ(gemms[9].shape, (GemmShape{1024, 8192, 8192}));
  EXPECT_EQ(gemms[7].op, "mlp_down");
  EXPECT_EQ(gemms[7].pass, Pass::kDgrad);
  EXPECT_EQ(gemms[7].shape, (GemmShape{8192, 8192, 3584}));
}

TEST(TensorParallel, RanksTogetherDoTheUnsplitLayersWork) {
  ModelConfig config = find_preset("llama3-70b")->config;
  double unsplit = 0;
  for (const LayerGemm& gemm : layer_gemms(config))
    unsplit += gemm.shape.flops();
  for (int64_t ranks : {2, 4, 8}) {
    config.tensor_parallel = ranks;
    double per_rank = 0;
    for (const LayerGemm& gemm : layer_gemms(config))
      per_rank += gemm.shape.flops();
    EXPECT_DOUBLE_EQ(per_rank * static_cast<double>(ranks), unsplit) << ranks << " ranks";
  }
}

TEST(Llama3EightB, AllTwelveGemms) {
  const std::vector<LayerGemm> gemms = layer_gemms(find_preset("llama3-8b")->config);
  // tokens 8192; qkv (32 + 2 * 8) * 128 = 6144; gated mlp_up 2 * 14336 = 28672.
  const std::vector<GemmShape> expected = {
      {8192, 4096, 6144}, {8192, 4096, 4096}, {8192, 4096, 28672}, {8192, 14336, 4096},
      {8192, 6144, 4096}, {8192, 4096, 4096}, {8192, 28672, 4096}, {8192, 4096, 14336},
      {4096, 8192, 6144}, {4096, 8192, 4096}, {4096, 8192, 28672}, {14336, 8192, 4096},
  };
  ASSERT_EQ(gemms.size(), expected.size());
  for (size_t i = 0; i < gemms.size(); ++i) {
    EXPECT_EQ(gemms[i].shape, expected[i]) << pass_name(gemms[i].pass) << "/" << gemms[i].op;
  }
}

TEST(LayerGemms, PassesAndOpsComeInRegistrationOrder) {
  const std::vector<LayerGemm> gemms = layer_gemms(ModelConfig{});
  ASSERT_EQ(gemms.size(), 12u);
  const Pass passes[] = {Pass::kFprop, Pass::kDgrad, Pass::kWgrad};
  const char* const ops[] = {"qkv", "attn_out", "mlp_up", "mlp_down"};
  for (size_t i = 0; i < gemms.size(); ++i) {
    EXPECT_EQ(gemms[i].pass, passes[i / 4]) << i;
    EXPECT_EQ(gemms[i].op, ops[i % 4]) << i;
  }
}

TEST(LayerGemms, RefuseAnInvalidConfig) {
  ModelConfig config;
  config.tensor_parallel = 3;
  EXPECT_THROW(layer_gemms(config), std::invalid_argument);
  EXPECT_THROW(linear_ops(config), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
