// make_workload with the head_dim, mixture-of-experts, MLA and --routing flags: every flag
// reaches the config, the routing reaches the grouped GEMMs, and MoE flags for a dense model
// are refused.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shapes/workload.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::HasSubstr;

std::string refusal(const FlagValues& flags) {
  return invalid_argument_message([&] { make_workload(flags); });
}

const LayerGemm* find_fprop(const Workload& workload, const std::string& op) {
  for (const LayerGemm& gemm : workload.gemms) {
    if (gemm.pass == Pass::kFprop && gemm.op == op)
      return &gemm;
  }
  return nullptr;
}

TEST(MoeWorkload, EveryMoeFlagAndHeadDimReachTheConfig) {
  const Workload workload = make_workload({{"head_dim", "64"},
                                           {"num_experts", "16"},
                                           {"num_experts_per_token", "4"},
                                           {"moe_intermediate_size", "1024"},
                                           {"num_shared_experts", "2"},
                                           {"first_k_dense", "1"},
                                           {"expert_parallel", "2"},
                                           {"gated_mlp", "true"}});
  EXPECT_EQ(workload.model.name, "custom");
  EXPECT_EQ(workload.model.describe(),
            "hidden_size=4096 intermediate_size=16384 num_attention_heads=32 "
            "num_key_value_heads=32 num_hidden_layers=24 micro_batch_size=31 "
            "sequence_length=512 gated_mlp=true tensor_parallel=1 head_dim=64 num_experts=16 "
            "num_experts_per_token=4 moe_intermediate_size=1024 num_shared_experts=2 "
            "first_k_dense=1 expert_parallel=2");
  // 15872 tokens x top-4 x 2 ranks over 16 experts: 7936 rows each, 8 experts on the rank.
  EXPECT_EQ(workload.expert_routing.rank, 0);
  EXPECT_EQ(workload.expert_routing.rows, std::vector<int64_t>(8, 7936));
  const LayerGemm* up = find_fprop(workload, "expert_up");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->shape, (GemmShape{8 * 7936, 4096, 2048}));
  EXPECT_EQ(up->layers, 23);
  ASSERT_NE(find_fprop(workload, "shared_up"), nullptr);
  EXPECT_EQ(find_fprop(workload, "shared_up")->shape, (GemmShape{15872, 4096, 4096}));
  EXPECT_EQ(find_fprop(workload, "mlp_up")->layers, 1);
  EXPECT_EQ(find_fprop(workload, "qkv")->shape, (GemmShape{15872, 4096, 96 * 64}));
}

TEST(MoeWorkload, EveryMlaFlagReachesTheConfig) {
  const Workload workload = make_workload({{"q_lora_rank", "1024"},
                                           {"kv_lora_rank", "256"},
                                           {"qk_nope_head_dim", "64"},
                                           {"qk_rope_head_dim", "32"},
                                           {"v_head_dim", "48"}});
  EXPECT_THAT(workload.model.describe(),
              ::testing::EndsWith(" tensor_parallel=1 q_lora_rank=1024 kv_lora_rank=256 "
                                  "qk_nope_head_dim=64 qk_rope_head_dim=32 v_head_dim=48"));
  EXPECT_EQ(find_fprop(workload, "qkv"), nullptr);
  EXPECT_EQ(find_fprop(workload, "q_a")->shape, (GemmShape{15872, 4096, 1024}));
  EXPECT_EQ(find_fprop(workload, "q_b")->shape, (GemmShape{15872, 1024, 32 * 96}));
  EXPECT_EQ(find_fprop(workload, "kv_a")->shape, (GemmShape{15872, 4096, 288}));
  EXPECT_EQ(find_fprop(workload, "kv_b")->shape, (GemmShape{15872, 256, 32 * 112}));
  EXPECT_EQ(find_fprop(workload, "attn_out")->shape, (GemmShape{15872, 32 * 48, 4096}));
  EXPECT_TRUE(workload.expert_routing.rows.empty());  // MLA, but dense
}

TEST(MoeWorkload, PresetOverridesKeepTheName) {
  const Workload workload =
      make_workload({{"model", "deepseek-v3"}, {"first_k_dense", "0"}, {"expert_parallel", "16"}});
  EXPECT_EQ(workload.model.name, "deepseek-v3");
  EXPECT_EQ(find_fprop(workload, "mlp_up"), nullptr);  // no dense layer left
  EXPECT_EQ(find_fprop(workload, "expert_up")->layers, 61);
  EXPECT_EQ(workload.expert_routing.rows, std::vector<int64_t>(16, 2048));
  const Workload no_shared = make_workload({{"model", "deepseek-v3"}, {"num_shared_experts", "0"}});
  EXPECT_EQ(find_fprop(no_shared, "shared_up"), nullptr);
}

TEST(MoeWorkload, RoutingDefaultsToBalancedAndReachesTheGroups) {
  const Workload balanced = make_workload({{"model", "qwen3-30b-a3b"}});
  EXPECT_EQ(balanced.routing.kind, Routing::Kind::kBalanced);
  EXPECT_EQ(balanced.expert_routing.rows, std::vector<int64_t>(128, 256));

  const Workload skewed = make_workload({{"model", "qwen3-30b-a3b"}, {"routing", "skewed:1.5"}});
  EXPECT_EQ(skewed.routing.kind, Routing::Kind::kSkewed);
  EXPECT_EQ(skewed.routing.alpha, 1.5);
  EXPECT_EQ(skewed.expert_routing.rows,
            route_tokens(skewed.model, parse_routing("skewed:1.5")).rows);
  std::vector<int64_t> with_rows;
  for (const int64_t rows : skewed.expert_routing.rows) {
    if (rows > 0)
      with_rows.push_back(rows);
  }
  for (const LayerGemm& gemm : skewed.gemms) {
    if (gemm.op == "expert_up" || gemm.op == "expert_down") {
      EXPECT_EQ(gemm.group_rows, with_rows) << gemm.op;
    }
  }
  EXPECT_EQ(skewed.model.name, "qwen3-30b-a3b");  // --routing is not a model dimension
}

TEST(MoeWorkload, DenseModelsHaveNoRouting) {
  const Workload workload = make_workload({{"model", "llama3-8b"}});
  EXPECT_TRUE(workload.expert_routing.rows.empty());
  for (const LayerGemm& gemm : workload.gemms)
    EXPECT_FALSE(gemm.grouped()) << gemm.op;
}

TEST(MoeWorkloadRefusal, RoutingIsForMixtureOfExpertsModelsOnly) {
  for (const FlagValues& flags : {FlagValues{{"routing", "skewed"}},
                                  FlagValues{{"model", "llama3-8b"}, {"routing", "balanced"}}}) {
    const std::string message = refusal(flags);
    EXPECT_THAT(message, HasSubstr("--routing="));
    EXPECT_THAT(message, HasSubstr("is dense: set --num_experts too"));
  }
}

TEST(MoeWorkloadRefusal, BadRoutingValuesNameTheFlag) {
  for (const char* bad : {"skewed:0", "skewed:", "Balanced", "skewed:nan"}) {
    EXPECT_THAT(refusal({{"model", "mixtral-8x7b"}, {"routing", bad}}),
                HasSubstr(std::string("--routing=") + bad + ": expected balanced"))
        << bad;
  }
}

TEST(MoeWorkloadRefusal, MoeFlagsForADenseModelAreRefusedWhateverTheirValue) {
  // Even the values that leave a dense config unchanged: the user meant a MoE model.
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"num_experts_per_token", "2"},
                                                        {"moe_intermediate_size", "1024"},
                                                        {"num_shared_experts", "0"},
                                                        {"first_k_dense", "0"},
                                                        {"expert_parallel", "1"}}) {
    const std::string message = refusal({{"model", "llama3-70b"}, {flag, value}});
    EXPECT_THAT(message, HasSubstr("--" + flag + "=" + value)) << flag;
    EXPECT_THAT(message, HasSubstr("the model (llama3-70b) is dense: set --num_experts too"))
        << flag;
  }
}

TEST(MoeWorkloadRefusal, NumExpertsAloneNamesWhatIsMissing) {
  EXPECT_THAT(refusal({{"num_experts", "8"}}),
              HasSubstr("--num_experts_per_token=0 must be from 1 to --num_experts=8"));
  EXPECT_THAT(refusal({{"num_experts", "8"}, {"num_experts_per_token", "2"}}),
              HasSubstr("--moe_intermediate_size=0 must be a positive integer"));
}

TEST(MoeWorkloadRefusal, MlaFlagsWithoutKvLoraRankAskForIt) {
  EXPECT_THAT(refusal({{"qk_rope_head_dim", "64"}}),
              HasSubstr("--qk_rope_head_dim=64 applies to multi-head latent attention models "
                        "only: set --kv_lora_rank too"));
  EXPECT_THAT(refusal({{"model", "deepseek-v3"}, {"head_dim", "128"}}),
              HasSubstr("--head_dim=128 does not apply to multi-head latent attention"));
}

TEST(MoeWorkloadRefusal, ZeroAllowedFlagsStillRefuseBadText) {
  const std::string message = refusal({{"model", "deepseek-v3"}, {"num_shared_experts", "-1"}});
  EXPECT_THAT(message, HasSubstr("--num_shared_experts=-1: the value is negative; expected 0 or a "
                                 "positive integer up to 2147483647"));
  EXPECT_THAT(refusal({{"model", "deepseek-v3"}, {"first_k_dense", "61"}}),
              HasSubstr("--first_k_dense=61 must be from 0 to 60"));
}

TEST(MoeWorkloadRefusal, ShapesCannotBeMixedWithMoeFlags) {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"num_experts", "8"},
                                                        {"routing", "skewed"},
                                                        {"kv_lora_rank", "512"},
                                                        {"head_dim", "64"}}) {
    const std::string message = refusal({{"shapes", "1x2x3"}, {flag, value}});
    EXPECT_THAT(message, HasSubstr("--shapes cannot be combined with model flags")) << flag;
    EXPECT_THAT(message, HasSubstr("--" + flag + "=" + value)) << flag;
  }
}

}  // namespace
}  // namespace gemmscope
