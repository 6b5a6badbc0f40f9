// make_workload in model mode: presets, overrides, naming, and refusal of every bad value.

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

TEST(WorkloadFlagNames, AreTheModelFlagsThenModelAndShapes) {
  const std::vector<std::string> expected = {"hidden_size",
                                             "intermediate_size",
                                             "num_attention_heads",
                                             "num_key_value_heads",
                                             "num_hidden_layers",
                                             "micro_batch_size",
                                             "sequence_length",
                                             "tensor_parallel",
                                             "head_dim",
                                             "num_experts",
                                             "num_experts_per_token",
                                             "moe_intermediate_size",
                                             "num_shared_experts",
                                             "first_k_dense",
                                             "expert_parallel",
                                             "q_lora_rank",
                                             "kv_lora_rank",
                                             "qk_nope_head_dim",
                                             "qk_rope_head_dim",
                                             "v_head_dim",
                                             "gated_mlp",
                                             "routing",
                                             "model",
                                             "shapes"};
  EXPECT_EQ(workload_flag_names(), expected);
}

TEST(ModelWorkload, ModelFlagPicksThePreset) {
  const Workload workload = make_workload({{"model", "llama3-70b"}});
  EXPECT_EQ(workload.kind, Workload::Kind::kModel);
  EXPECT_EQ(workload.model.name, "llama3-70b");
  EXPECT_EQ(workload.model.hidden_size, 8192);
  ASSERT_EQ(workload.gemms.size(), 12u);
  EXPECT_EQ(workload.gemms[0].shape, (GemmShape{8192, 8192, 10240}));  // (64 + 16) * 128
}

TEST(ModelWorkload, FlagsOverrideThePresetAndKeepItsName) {
  const Workload workload = make_workload({{"model", "llama3-8b"}, {"micro_batch_size", "2"}});
  EXPECT_EQ(workload.model.name, "llama3-8b");
  EXPECT_EQ(workload.model.micro_batch_size, 2);
  EXPECT_EQ(workload.model.num_key_value_heads, 8);
  EXPECT_TRUE(workload.model.gated_mlp);
  EXPECT_EQ(workload.gemms[0].shape, (GemmShape{16384, 4096, 6144}));
}

TEST(ModelWorkload, FlagsWithoutModelOverrideTheTutorialAndNameItCustom) {
  const Workload workload = make_workload({{"sequence_length", "1024"}});
  EXPECT_EQ(workload.model.name, "custom");
  EXPECT_EQ(workload.model.sequence_length, 1024);
  EXPECT_EQ(workload.model.hidden_size, 4096);
  EXPECT_EQ(workload.gemms[0].shape, (GemmShape{31 * 1024, 4096, 12288}));
}

TEST(ModelWorkload, EveryIntegerFlagReachesTheConfig) {
  const Workload workload = make_workload({{"hidden_size", "2048"},
                                           {"intermediate_size", "5632"},
                                           {"num_attention_heads", "16"},
                                           {"num_key_value_heads", "4"},
                                           {"num_hidden_layers", "22"},
                                           {"micro_batch_size", "3"},
                                           {"sequence_length", "4096"},
                                           {"tensor_parallel", "2"}});
  EXPECT_EQ(workload.model.describe(),
            "hidden_size=2048 intermediate_size=5632 num_attention_heads=16 "
            "num_key_value_heads=4 num_hidden_layers=22 micro_batch_size=3 "
            "sequence_length=4096 gated_mlp=false tensor_parallel=2");
  // qkv per rank: (16 + 8) * 128 / 2 = 1536.
  EXPECT_EQ(workload.gemms[0].shape, (GemmShape{12288, 2048, 1536}));
}

TEST(ModelWorkload, KvHeadsFollowHeadsWhenTheStartingConfigHasNoGqa) {
  const Workload workload = make_workload({{"num_attention_heads", "64"}});
  EXPECT_EQ(workload.model.num_key_value_heads, 64);
  EXPECT_EQ(workload.gemms[0].shape.n, 3 * 4096);  // still plain multi-head attention
}

TEST(ModelWorkload, KvHeadsStayWhenTheStartingConfigHasGqa) {
  const Workload workload = make_workload({{"model", "llama3-8b"}, {"num_attention_heads", "64"}});
  EXPECT_EQ(workload.model.num_key_value_heads, 8);
  EXPECT_EQ(workload.gemms[0].shape.n, (64 + 16) * 64);  // head_dim 4096 / 64
}

TEST(ModelWorkload, GivenKvHeadsAreKeptAsGiven) {
  const Workload workload =
      make_workload({{"num_attention_heads", "64"}, {"num_key_value_heads", "16"}});
  EXPECT_EQ(workload.model.num_key_value_heads, 16);
}

TEST(ModelWorkload, GatedMlpAcceptsTrueFalseOneZero) {
  EXPECT_TRUE(make_workload({{"gated_mlp", "true"}}).model.gated_mlp);
  EXPECT_TRUE(make_workload({{"gated_mlp", "1"}}).model.gated_mlp);
  EXPECT_FALSE(make_workload({{"gated_mlp", "false"}}).model.gated_mlp);
  EXPECT_FALSE(make_workload({{"gated_mlp", "0"}}).model.gated_mlp);
  EXPECT_FALSE(make_workload({{"model", "llama3-8b"}, {"gated_mlp", "false"}}).model.gated_mlp);
  EXPECT_EQ(make_workload({{"gated_mlp", "true"}}).gemms[2].shape.n, 32768);
  EXPECT_EQ(make_workload({{"gated_mlp", "true"}}).model.name, "custom");
}

TEST(ModelWorkloadRefusal, GatedMlpRefusesOtherWords) {
  for (const char* bad : {"", "yes", "no", "TRUE", "2", "true "}) {
    const std::string message = refusal({{"gated_mlp", bad}});
    EXPECT_THAT(message, HasSubstr(std::string("--gated_mlp=") + bad + ":")) << bad;
    EXPECT_THAT(message, HasSubstr("true, false, on, off, 1 or 0"));
  }
}

// Each bad spelling with the reason the message must give.
struct BadInteger {
  const char* value;
  const char* problem;
};

const BadInteger kBadIntegers[] = {
    {"", "is empty"},
    {"abc", "is not a decimal integer"},
    {"12abc", "is not a decimal integer"},
    {"1.5", "is not a decimal integer"},
    {"1e3", "is not a decimal integer"},
    {" 12", "is not a decimal integer"},
    {"12 ", "is not a decimal integer"},
    {"+12", "is not a decimal integer"},
    {"0x10", "is not a decimal integer"},
    {"--4", "is not a decimal integer"},
    {"0", "is not positive"},
    {"-4", "is not positive"},
    {"-99999999999999999999", "is not positive"},
    {"2147483648", "exceeds the maximum 2147483647"},
    {"99999999999999999999", "exceeds the maximum 2147483647"},
};

TEST(ModelWorkloadRefusal, EveryIntegerFlagRefusesEveryBadValue) {
  for (const std::string& flag : workload_flag_names()) {
    if (flag == "gated_mlp" || flag == "routing" || flag == "model" || flag == "shapes")
      continue;
    // Counts that may be 0 take it, and call a negative value negative.
    const bool zero_allowed = flag == "num_shared_experts" || flag == "first_k_dense";
    for (const BadInteger& bad : kBadIntegers) {
      std::string problem = bad.problem;
      if (zero_allowed && problem == "is not positive") {
        if (std::string(bad.value) == "0")
          continue;
        problem = "is negative";
      }
      // Values are parsed before anything else is checked: on te-tutorial too, a MoE flag's
      // bad value is what the message names.
      const std::string message = refusal({{flag, bad.value}});
      EXPECT_THAT(message, HasSubstr("--" + flag + "=" + bad.value + ":")) << flag;
      EXPECT_THAT(message, HasSubstr(problem)) << flag << "=" << bad.value;
    }
  }
}

TEST(ModelWorkloadRefusal, BadValuesAreRefusedWithAPresetToo) {
  const std::string message = refusal({{"model", "llama3-8b"}, {"sequence_length", "8k"}});
  EXPECT_THAT(message, HasSubstr("--sequence_length=8k"));
}

TEST(ModelWorkloadRefusal, UnknownPresetListsTheKnownOnes) {
  for (const char* bad : {"llama3-405b", "", "LLAMA3-8B"}) {
    const std::string message = refusal({{"model", bad}});
    EXPECT_THAT(message, HasSubstr(std::string("--model=") + bad + " is not a known model"));
    EXPECT_THAT(message, HasSubstr("te-tutorial, llama3-8b, llama3-70b"));
  }
}

TEST(ModelWorkloadRefusal, InconsistentDimensionsNameTheFlags) {
  EXPECT_THAT(refusal({{"num_attention_heads", "30"}}),
              HasSubstr("--num_attention_heads=30 must divide --hidden_size=4096"));
  EXPECT_THAT(refusal({{"num_key_value_heads", "5"}}),
              HasSubstr("--num_key_value_heads=5 must divide --num_attention_heads=32"));
  EXPECT_THAT(refusal({{"model", "llama3-8b"}, {"tensor_parallel", "16"}}),
              HasSubstr("--tensor_parallel=16 must divide --num_key_value_heads=8"));
  EXPECT_THAT(refusal({{"tensor_parallel", "3"}}), HasSubstr("--tensor_parallel=3"));
  EXPECT_THAT(refusal({{"micro_batch_size", "100000"}, {"sequence_length", "100000"}}),
              HasSubstr("--micro_batch_size=100000"));
}

TEST(ModelWorkloadRefusal, UnknownFlagIsNamed) {
  EXPECT_THAT(refusal({{"hidden", "4096"}}), HasSubstr("--hidden=4096 is not a workload flag"));
}

}  // namespace
}  // namespace gemmscope
