// The default config must reproduce the GEMM table of TransformerEngine's tutorial exactly.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shapes/layer_gemms.h"
#include "shapes/model_config.h"
#include "shapes/workload.h"

namespace gemmscope {
namespace {

struct ExpectedGemm {
  Pass pass;
  std::string op;
  GemmShape shape;
};

const std::vector<ExpectedGemm> kTutorialGemms = {
    {Pass::kFprop, "qkv", {15872, 4096, 12288}},
    {Pass::kFprop, "attn_out", {15872, 4096, 4096}},
    {Pass::kFprop, "mlp_up", {15872, 4096, 16384}},
    {Pass::kFprop, "mlp_down", {15872, 16384, 4096}},
    {Pass::kDgrad, "qkv", {15872, 12288, 4096}},
    {Pass::kDgrad, "attn_out", {15872, 4096, 4096}},
    {Pass::kDgrad, "mlp_up", {15872, 16384, 4096}},
    {Pass::kDgrad, "mlp_down", {15872, 4096, 16384}},
    {Pass::kWgrad, "qkv", {4096, 15872, 12288}},
    {Pass::kWgrad, "attn_out", {4096, 15872, 4096}},
    {Pass::kWgrad, "mlp_up", {4096, 15872, 16384}},
    {Pass::kWgrad, "mlp_down", {16384, 15872, 4096}},
};

void expect_tutorial_gemms(const std::vector<LayerGemm>& gemms) {
  ASSERT_EQ(gemms.size(), kTutorialGemms.size());
  for (size_t i = 0; i < gemms.size(); ++i) {
    SCOPED_TRACE("gemm " + std::to_string(i));
    EXPECT_EQ(gemms[i].pass, kTutorialGemms[i].pass);
    EXPECT_EQ(gemms[i].op, kTutorialGemms[i].op);
    EXPECT_EQ(gemms[i].shape, kTutorialGemms[i].shape);
    EXPECT_EQ(gemms[i].shape, gemm_shape(gemms[i].pass, gemms[i].dims));
    EXPECT_EQ(gemms[i].dims.tokens, 15872);
  }
}

TEST(TutorialConfig, DefaultsAreTheTutorialModel) {
  const ModelConfig config;
  EXPECT_EQ(config.name, "te-tutorial");
  EXPECT_EQ(config.tokens(), 15872);  // micro-batch 31 x sequence 512
  EXPECT_EQ(config.head_dim(), 128);
  EXPECT_EQ(config.describe(),
            "hidden_size=4096 intermediate_size=16384 num_attention_heads=32 "
            "num_key_value_heads=32 num_hidden_layers=24 micro_batch_size=31 "
            "sequence_length=512 gated_mlp=false tensor_parallel=1");
}

TEST(TutorialConfig, LayerGemmsAreExactlyTheTutorialTable) {
  expect_tutorial_gemms(layer_gemms(ModelConfig{}));
}

TEST(TutorialConfig, IsWhatNoFlagsSelect) {
  const Workload workload = make_workload({});
  EXPECT_EQ(workload.kind, Workload::Kind::kModel);
  EXPECT_EQ(workload.model.name, "te-tutorial");
  expect_tutorial_gemms(workload.gemms);
}

TEST(TutorialConfig, IsWhatModelTeTutorialSelects) {
  expect_tutorial_gemms(make_workload({{"model", "te-tutorial"}}).gemms);
}

TEST(TutorialConfig, LinearOpsAreTheFourProjections) {
  const std::vector<LinearOp> ops = linear_ops(ModelConfig{});
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].op, "qkv");
  EXPECT_EQ(ops[0].in_features, 4096);
  EXPECT_EQ(ops[0].out_features, 12288);
  EXPECT_EQ(ops[1].op, "attn_out");
  EXPECT_EQ(ops[1].in_features, 4096);
  EXPECT_EQ(ops[1].out_features, 4096);
  EXPECT_EQ(ops[2].op, "mlp_up");
  EXPECT_EQ(ops[2].in_features, 4096);
  EXPECT_EQ(ops[2].out_features, 16384);
  EXPECT_EQ(ops[3].op, "mlp_down");
  EXPECT_EQ(ops[3].in_features, 16384);
  EXPECT_EQ(ops[3].out_features, 4096);
}

}  // namespace
}  // namespace gemmscope
