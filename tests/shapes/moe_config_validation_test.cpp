// validate() for the head_dim, mixture-of-experts and MLA fields: each rule refused with a
// message naming the flag, and describe() showing the fields a config sets.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "shapes/model_config.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::HasSubstr;

std::string refusal(const ModelConfig& config) {
  return invalid_argument_message([&] { validate(config); });
}

// te-tutorial's dimensions with 8 experts of width 1024, top-2.
ModelConfig moe_config() {
  ModelConfig config;
  config.num_experts = 8;
  config.num_experts_per_token = 2;
  config.moe_intermediate_size = 1024;
  return config;
}

// te-tutorial's dimensions with DeepSeek-V3's MLA widths.
ModelConfig mla_config() {
  ModelConfig config;
  config.q_lora_rank = 1536;
  config.kv_lora_rank = 512;
  config.qk_nope_head_dim = 128;
  config.qk_rope_head_dim = 64;
  config.v_head_dim = 128;
  return config;
}

TEST(ValidateMoe, AcceptsAMoeAndAnMlaConfig) {
  EXPECT_NO_THROW(validate(moe_config()));
  EXPECT_NO_THROW(validate(mla_config()));
  ModelConfig both = mla_config();
  both.num_experts = 8;
  both.num_experts_per_token = 8;  // top-k may be every expert
  both.moe_intermediate_size = 1024;
  EXPECT_NO_THROW(validate(both));
}

TEST(ValidateMoe, MoeFieldsOnADenseModelAskForNumExperts) {
  struct Field {
    const char* flag;
    int64_t ModelConfig::*field;
    int64_t value;
  };
  const Field fields[] = {
      {"--num_experts_per_token=2", &ModelConfig::num_experts_per_token, 2},
      {"--moe_intermediate_size=1024", &ModelConfig::moe_intermediate_size, 1024},
      {"--num_shared_experts=1", &ModelConfig::num_shared_experts, 1},
      {"--first_k_dense=3", &ModelConfig::first_k_dense, 3},
      {"--expert_parallel=8", &ModelConfig::expert_parallel, 8},
  };
  for (const Field& f : fields) {
    ModelConfig config;  // num_experts 0: dense
    config.*f.field = f.value;
    const std::string message = refusal(config);
    EXPECT_THAT(message, HasSubstr(std::string(f.flag) + " applies to mixture-of-experts models "
                                                         "only: set --num_experts"))
        << f.flag;
  }
}

TEST(ValidateMoe, NumExpertsIsBounded) {
  ModelConfig config = moe_config();
  config.num_experts = 4096;
  EXPECT_NO_THROW(validate(config));
  config.num_experts = 4097;
  EXPECT_THAT(refusal(config), HasSubstr("--num_experts=4097 must be from 1 to 4096"));
  config.num_experts = -8;  // not 0, so not dense either
  EXPECT_THAT(refusal(config), HasSubstr("--num_experts=-8 must be from 1 to 4096 (0 is a dense"));
}

TEST(ValidateMoe, TopKIsFromOneToTheExperts) {
  ModelConfig config = moe_config();
  for (int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{9}}) {
    config.num_experts_per_token = bad;
    EXPECT_THAT(refusal(config),
                HasSubstr("--num_experts_per_token=" + std::to_string(bad) +
                          " must be from 1 to --num_experts=8 (each token picks that many "
                          "distinct experts)"));
  }
}

TEST(ValidateMoe, ExpertWidthIsRequired) {
  ModelConfig config = moe_config();
  config.moe_intermediate_size = 0;
  EXPECT_THAT(refusal(config), HasSubstr("--moe_intermediate_size=0 must be a positive integer"));
}

TEST(ValidateMoe, SharedExpertsMayBeZeroButNotNegative) {
  ModelConfig config = moe_config();
  config.num_shared_experts = 0;
  EXPECT_NO_THROW(validate(config));
  config.num_shared_experts = -1;
  EXPECT_THAT(refusal(config), HasSubstr("--num_shared_experts=-1 must be 0 (no shared expert)"));
}

TEST(ValidateMoe, FirstKDenseLeavesAtLeastOneMoeLayer) {
  ModelConfig config = moe_config();  // 24 layers
  config.first_k_dense = 23;
  EXPECT_NO_THROW(validate(config));
  EXPECT_EQ(config.dense_layers(), 23);
  EXPECT_EQ(config.moe_layers(), 1);
  config.first_k_dense = 24;
  const std::string message = refusal(config);
  EXPECT_THAT(message,
              HasSubstr("--first_k_dense=24 must be from 0 to 23, below --num_hidden_layers=24"));
  EXPECT_THAT(message, HasSubstr("for a dense model leave --num_experts unset"));
  config.first_k_dense = -1;
  EXPECT_THAT(refusal(config), HasSubstr("--first_k_dense=-1 must be from 0 to 23"));
}

TEST(ValidateMoe, ExpertParallelMustDivideTheExperts) {
  ModelConfig config = moe_config();
  config.expert_parallel = 8;
  EXPECT_NO_THROW(validate(config));
  EXPECT_EQ(config.experts_per_rank(), 1);
  config.expert_parallel = 3;
  EXPECT_THAT(refusal(config), HasSubstr("--expert_parallel=3 must divide --num_experts=8"));
  config.expert_parallel = 0;
  EXPECT_THAT(refusal(config), HasSubstr("--expert_parallel=0 must be a positive integer"));
}

TEST(ValidateMoe, TensorParallelMustDivideTheSharedExpertsWidth) {
  ModelConfig config = moe_config();
  config.moe_intermediate_size = 1000;
  config.tensor_parallel = 16;        // divides the heads and the dense MLP, not 1000
  EXPECT_NO_THROW(validate(config));  // routed experts are not split over tensor_parallel
  config.num_shared_experts = 1;
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=16 must divide the shared experts' width "
                        "--num_shared_experts=1 x --moe_intermediate_size=1000 = 1000"));
  config.num_shared_experts = 3;  // 3000 is not a multiple of 16 either
  EXPECT_THAT(refusal(config), HasSubstr("= 3000"));
}

TEST(ValidateMoe, AnUnusedDenseMlpNeedNotSplitOverTensorParallel) {
  ModelConfig config = moe_config();  // every layer a MoE layer
  config.intermediate_size = 16386;
  config.tensor_parallel = 4;
  EXPECT_NO_THROW(validate(config));
  config.first_k_dense = 1;  // now one layer runs the dense MLP
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=4 must divide --intermediate_size=16386"));
}

TEST(ValidateMoe, ExpertUpWidthMustFitAGemmDimension) {
  ModelConfig config = moe_config();
  config.moe_intermediate_size = 1073741824;  // 2^30: 2^31 once gated
  EXPECT_NO_THROW(validate(config));
  config.gated_mlp = true;
  const std::string message = refusal(config);
  EXPECT_THAT(message, HasSubstr("an expert's up output width --moe_intermediate_size=1073741824"));
  EXPECT_THAT(message, HasSubstr("--gated_mlp"));
}

TEST(ValidateMoe, SharedExpertsUpWidthMustFitAGemmDimension) {
  ModelConfig config = moe_config();
  config.moe_intermediate_size = 1000000000;
  config.num_shared_experts = 3;
  EXPECT_THAT(refusal(config), HasSubstr("the shared experts' up output width per rank"));
  config.tensor_parallel = 2;  // 1.5e9 per rank fits
  EXPECT_NO_THROW(validate(config));
  // Shared experts times the width beyond int64: refused, not overflowed (UBSan in CI).
  config.num_shared_experts = 2147483647;
  config.tensor_parallel = 1;
  EXPECT_THAT(refusal(config), HasSubstr("--num_shared_experts=2147483647"));
}

TEST(ValidateMoe, RowsRoutedByTheGroupMustFitAGemmDimension) {
  ModelConfig config = moe_config();
  config.micro_batch_size = 1;
  config.sequence_length = 1048576;  // 2^20 tokens
  config.num_experts = 256;
  config.num_experts_per_token = 8;
  config.expert_parallel = 128;  // 2^20 x 8 x 128 = 2^30
  EXPECT_NO_THROW(validate(config));
  config.expert_parallel = 256;  // 2^31
  const std::string message = refusal(config);
  EXPECT_THAT(message, HasSubstr("the rows routed by the expert-parallel group, tokens 1048576 x "
                                 "--num_experts_per_token=8 x --expert_parallel=256"));
  EXPECT_THAT(message, HasSubstr("2147483648"));
}

TEST(ValidateMoe, ExtremeValuesAreRefusedWithoutOverflow) {
  ModelConfig config = moe_config();
  config.micro_batch_size = 1;
  config.sequence_length = 2147483647;
  config.num_experts = 4096;
  config.num_experts_per_token = 4096;
  config.expert_parallel = 4096;
  EXPECT_THAT(refusal(config), HasSubstr("the rows routed by the expert-parallel group"));
}

TEST(ValidateHeadDim, GivenHeadDimFreesTheHeadsFromDividingHidden) {
  ModelConfig config;
  config.num_attention_heads = 30;
  config.num_key_value_heads = 30;
  EXPECT_THAT(refusal(config),
              HasSubstr("--num_attention_heads=30 must divide --hidden_size=4096"));
  config.attention_head_dim = 128;
  EXPECT_NO_THROW(validate(config));
  EXPECT_EQ(config.head_dim(), 128);
}

TEST(ValidateHeadDim, NegativeOrTooLargeIsRefused) {
  ModelConfig config;
  config.attention_head_dim = -64;
  EXPECT_THAT(refusal(config),
              HasSubstr("--head_dim=-64 must be 0 (hidden_size / num_attention_heads) or a "
                        "positive integer up to 2147483647"));
  config.attention_head_dim = 2147483648;
  EXPECT_THAT(refusal(config), HasSubstr("--head_dim=2147483648"));
}

TEST(ValidateHeadDim, QkvWidthWithAGivenHeadDimMustFit) {
  ModelConfig config;
  config.attention_head_dim = 22369621;  // (32 + 2 x 32) x that = 2147483616 fits
  EXPECT_NO_THROW(validate(config));
  config.attention_head_dim = 22369622;
  EXPECT_THAT(refusal(config), HasSubstr("QKV output width"));
}

TEST(ValidateHeadDim, ExtremeHeadsAndHeadDimAreRefusedWithoutOverflow) {
  ModelConfig config;
  config.num_attention_heads = 2147483647;
  config.num_key_value_heads = 2147483647;
  config.attention_head_dim = 2147483647;  // 3 x (2^31 - 1)^2 is beyond int64 (UBSan in CI)
  EXPECT_THAT(refusal(config), HasSubstr("QKV output width"));
}

TEST(ValidateMla, MlaFieldsWithoutKvLoraRankAskForIt) {
  struct Field {
    const char* flag;
    int64_t ModelConfig::*field;
  };
  const Field fields[] = {{"--q_lora_rank=64", &ModelConfig::q_lora_rank},
                          {"--qk_nope_head_dim=64", &ModelConfig::qk_nope_head_dim},
                          {"--qk_rope_head_dim=64", &ModelConfig::qk_rope_head_dim},
                          {"--v_head_dim=64", &ModelConfig::v_head_dim}};
  for (const Field& f : fields) {
    ModelConfig config;
    config.*f.field = 64;
    EXPECT_THAT(refusal(config),
                HasSubstr(std::string(f.flag) + " applies to multi-head latent attention models "
                                                "only: set --kv_lora_rank too"));
  }
}

TEST(ValidateMla, EveryHeadWidthIsRequired) {
  for (int64_t ModelConfig::*field :
       {&ModelConfig::qk_nope_head_dim, &ModelConfig::qk_rope_head_dim, &ModelConfig::v_head_dim}) {
    ModelConfig config = mla_config();
    config.*field = 0;
    EXPECT_THAT(refusal(config), HasSubstr("_head_dim=0 must be a positive integer"));
  }
}

TEST(ValidateMla, QueryLatentMayBeZeroButNotNegative) {
  ModelConfig config = mla_config();
  config.q_lora_rank = 0;  // DeepSeek-V2-Lite projects the query directly
  EXPECT_NO_THROW(validate(config));
  config.q_lora_rank = -1;
  EXPECT_THAT(refusal(config), HasSubstr("--q_lora_rank=-1 must be 0 (the query projected "
                                         "directly from the hidden state)"));
}

TEST(ValidateMla, HeadDimDoesNotApply) {
  ModelConfig config = mla_config();
  config.attention_head_dim = 128;
  EXPECT_THAT(refusal(config),
              HasSubstr("--head_dim=128 does not apply to multi-head latent attention"));
}

TEST(ValidateMla, HeadsNeedNotDivideHiddenButTensorParallelMustDivideHeads) {
  ModelConfig config = mla_config();
  config.num_attention_heads = 96;  // 4096 / 96 is no integer: MLA's head widths are its own
  config.num_key_value_heads = 96;
  EXPECT_NO_THROW(validate(config));
  config.tensor_parallel = 5;
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=5 must divide --num_attention_heads=96"));
}

TEST(ValidateMla, ProjectionWidthsMustFitAGemmDimension) {
  ModelConfig config = mla_config();
  config.qk_nope_head_dim = 2147483647;  // x 32 heads
  EXPECT_THAT(refusal(config), HasSubstr("the MLA query width per rank"));
  config = mla_config();
  config.kv_lora_rank = 2147483647;  // + qk_rope_head_dim
  EXPECT_THAT(refusal(config), HasSubstr("the MLA key-value down projection width"));
  config = mla_config();
  config.v_head_dim = 100000000;  // (128 + that) x 32 heads
  EXPECT_THAT(refusal(config), HasSubstr("the MLA key-value up projection width per rank"));
  config = mla_config();
  config.num_attention_heads = 2147483647;
  config.num_key_value_heads = 2147483647;
  config.qk_nope_head_dim = 2147483647;
  config.qk_rope_head_dim = 2147483647;  // (2^31 - 1) x 2 (2^31 - 1) is beyond int64
  EXPECT_THAT(refusal(config), HasSubstr("the MLA query width per rank"));
}

TEST(DescribeMoe, DenseConfigsPrintTheNineFieldsOnly) {
  EXPECT_EQ(ModelConfig{}.describe(),
            "hidden_size=4096 intermediate_size=16384 num_attention_heads=32 "
            "num_key_value_heads=32 num_hidden_layers=24 micro_batch_size=31 "
            "sequence_length=512 gated_mlp=false tensor_parallel=1");
}

TEST(DescribeMoe, AppendsHeadDimMoeAndMlaFields) {
  ModelConfig config = mla_config();
  config.num_experts = 8;
  config.num_experts_per_token = 2;
  config.moe_intermediate_size = 1024;
  config.num_shared_experts = 1;
  config.first_k_dense = 3;
  config.expert_parallel = 4;
  EXPECT_EQ(config.describe(),
            "hidden_size=4096 intermediate_size=16384 num_attention_heads=32 "
            "num_key_value_heads=32 num_hidden_layers=24 micro_batch_size=31 "
            "sequence_length=512 gated_mlp=false tensor_parallel=1 num_experts=8 "
            "num_experts_per_token=2 moe_intermediate_size=1024 num_shared_experts=1 "
            "first_k_dense=3 expert_parallel=4 q_lora_rank=1536 kv_lora_rank=512 "
            "qk_nope_head_dim=128 qk_rope_head_dim=64 v_head_dim=128");
  ModelConfig head_dim;
  head_dim.attention_head_dim = 64;
  EXPECT_THAT(head_dim.describe(), ::testing::EndsWith(" tensor_parallel=1 head_dim=64"));
}

}  // namespace
}  // namespace gemmscope
