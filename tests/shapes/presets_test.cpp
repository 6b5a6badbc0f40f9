#include "shapes/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;

TEST(ModelPresets, TutorialFirstThenLlama3ThenMixturesOfExperts) {
  std::vector<std::string> names;
  for (const ModelPreset& preset : model_presets())
    names.push_back(preset.name);
  EXPECT_EQ(names, (std::vector<std::string>{"te-tutorial", "llama3-8b", "llama3-70b",
                                             "llama3.1-405b", "mixtral-8x7b", "qwen3-30b-a3b",
                                             "qwen3-235b-a22b", "deepseek-v3", "gpt-oss-120b"}));
}

TEST(ModelPresets, EachIsValidAndCarriesItsName) {
  for (const ModelPreset& preset : model_presets()) {
    SCOPED_TRACE(preset.name);
    EXPECT_EQ(preset.config.name, preset.name);
    EXPECT_FALSE(preset.description.empty());
    EXPECT_NO_THROW(validate(preset.config));
  }
}

TEST(ModelPresets, TutorialIsModelConfigsDefault) {
  const ModelConfig defaults;
  EXPECT_EQ(model_presets()[0].config.describe(), defaults.describe());
}

TEST(ModelPresets, Llama3EightBPublishedDimensions) {
  const ModelConfig& c = find_preset("llama3-8b")->config;
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.intermediate_size, 14336);
  EXPECT_EQ(c.num_attention_heads, 32);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.num_hidden_layers, 32);
  EXPECT_TRUE(c.gated_mlp);
  EXPECT_EQ(c.micro_batch_size, 1);
  EXPECT_EQ(c.sequence_length, 8192);
  EXPECT_EQ(c.tensor_parallel, 1);
  EXPECT_EQ(c.head_dim(), 128);
}

TEST(ModelPresets, Llama3SeventyBPublishedDimensions) {
  const ModelConfig& c = find_preset("llama3-70b")->config;
  EXPECT_EQ(c.hidden_size, 8192);
  EXPECT_EQ(c.intermediate_size, 28672);
  EXPECT_EQ(c.num_attention_heads, 64);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.num_hidden_layers, 80);
  EXPECT_TRUE(c.gated_mlp);
  EXPECT_EQ(c.micro_batch_size, 1);
  EXPECT_EQ(c.sequence_length, 8192);
  EXPECT_EQ(c.tensor_parallel, 1);
  EXPECT_EQ(c.head_dim(), 128);
}

// Each preset below pins every field to its model's published config (sources cited in
// shapes/presets.cpp); sequence 4096 (8192 for Llama) and micro-batch 1 are gemmscope's choice.

TEST(ModelPresets, Llama31FourHundredFiveBPublishedDimensions) {
  const ModelConfig& c = find_preset("llama3.1-405b")->config;
  EXPECT_EQ(c.hidden_size, 16384);
  EXPECT_EQ(c.intermediate_size, 53248);
  EXPECT_EQ(c.num_attention_heads, 128);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.num_hidden_layers, 126);
  EXPECT_TRUE(c.gated_mlp);
  EXPECT_EQ(c.micro_batch_size, 1);
  EXPECT_EQ(c.sequence_length, 8192);
  EXPECT_EQ(c.tensor_parallel, 1);
  EXPECT_EQ(c.head_dim(), 128);
  EXPECT_FALSE(c.is_moe());
  EXPECT_FALSE(c.is_mla());
}

// The fields every MoE preset shares.
void expect_moe_defaults(const ModelConfig& c) {
  EXPECT_TRUE(c.is_moe());
  EXPECT_TRUE(c.gated_mlp);
  EXPECT_EQ(c.micro_batch_size, 1);
  EXPECT_EQ(c.sequence_length, 4096);
  EXPECT_EQ(c.tensor_parallel, 1);
}

TEST(ModelPresets, Mixtral8x7bPublishedDimensions) {
  const ModelConfig& c = find_preset("mixtral-8x7b")->config;
  expect_moe_defaults(c);
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.intermediate_size, 14336);
  EXPECT_EQ(c.num_attention_heads, 32);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.head_dim(), 128);
  EXPECT_EQ(c.attention_head_dim, 0);
  EXPECT_EQ(c.num_hidden_layers, 32);
  EXPECT_EQ(c.num_experts, 8);
  EXPECT_EQ(c.num_experts_per_token, 2);
  EXPECT_EQ(c.moe_intermediate_size, 14336);
  EXPECT_EQ(c.num_shared_experts, 0);
  EXPECT_EQ(c.first_k_dense, 0);
  EXPECT_EQ(c.expert_parallel, 1);
  EXPECT_FALSE(c.is_mla());
}

TEST(ModelPresets, Qwen3ThirtyBA3bPublishedDimensions) {
  const ModelConfig& c = find_preset("qwen3-30b-a3b")->config;
  expect_moe_defaults(c);
  EXPECT_EQ(c.hidden_size, 2048);
  EXPECT_EQ(c.intermediate_size, 6144);
  EXPECT_EQ(c.num_attention_heads, 32);
  EXPECT_EQ(c.num_key_value_heads, 4);
  EXPECT_EQ(c.attention_head_dim, 128);
  EXPECT_EQ(c.num_hidden_layers, 48);
  EXPECT_EQ(c.num_experts, 128);
  EXPECT_EQ(c.num_experts_per_token, 8);
  EXPECT_EQ(c.moe_intermediate_size, 768);
  EXPECT_EQ(c.num_shared_experts, 0);
  EXPECT_EQ(c.first_k_dense, 0);
  EXPECT_EQ(c.expert_parallel, 1);
  EXPECT_FALSE(c.is_mla());
}

TEST(ModelPresets, Qwen3TwoHundredThirtyFiveBA22bPublishedDimensions) {
  const ModelConfig& c = find_preset("qwen3-235b-a22b")->config;
  expect_moe_defaults(c);
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.intermediate_size, 12288);
  EXPECT_EQ(c.num_attention_heads, 64);
  EXPECT_EQ(c.num_key_value_heads, 4);
  EXPECT_EQ(c.attention_head_dim, 128);
  EXPECT_EQ(c.num_hidden_layers, 94);
  EXPECT_EQ(c.num_experts, 128);
  EXPECT_EQ(c.num_experts_per_token, 8);
  EXPECT_EQ(c.moe_intermediate_size, 1536);
  EXPECT_EQ(c.num_shared_experts, 0);
  EXPECT_EQ(c.first_k_dense, 0);
  EXPECT_EQ(c.expert_parallel, 1);
  EXPECT_FALSE(c.is_mla());
}

TEST(ModelPresets, DeepSeekV3PublishedDimensions) {
  const ModelConfig& c = find_preset("deepseek-v3")->config;
  expect_moe_defaults(c);
  EXPECT_EQ(c.hidden_size, 7168);
  EXPECT_EQ(c.intermediate_size, 18432);
  EXPECT_EQ(c.num_attention_heads, 128);
  EXPECT_EQ(c.num_key_value_heads, 128);
  EXPECT_EQ(c.attention_head_dim, 0);
  EXPECT_EQ(c.num_hidden_layers, 61);
  EXPECT_EQ(c.num_experts, 256);
  EXPECT_EQ(c.num_experts_per_token, 8);
  EXPECT_EQ(c.moe_intermediate_size, 2048);
  EXPECT_EQ(c.num_shared_experts, 1);
  EXPECT_EQ(c.first_k_dense, 3);
  EXPECT_EQ(c.dense_layers(), 3);
  EXPECT_EQ(c.moe_layers(), 58);
  EXPECT_EQ(c.expert_parallel, 8);  // gemmscope's choice: one 8-GPU node
  EXPECT_EQ(c.experts_per_rank(), 32);
  EXPECT_TRUE(c.is_mla());
  EXPECT_EQ(c.q_lora_rank, 1536);
  EXPECT_EQ(c.kv_lora_rank, 512);
  EXPECT_EQ(c.qk_nope_head_dim, 128);
  EXPECT_EQ(c.qk_rope_head_dim, 64);
  EXPECT_EQ(c.v_head_dim, 128);
}

TEST(ModelPresets, GptOss120bPublishedDimensions) {
  const ModelConfig& c = find_preset("gpt-oss-120b")->config;
  expect_moe_defaults(c);
  EXPECT_EQ(c.hidden_size, 2880);
  EXPECT_EQ(c.intermediate_size, 2880);
  EXPECT_EQ(c.num_attention_heads, 64);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.attention_head_dim, 64);
  EXPECT_EQ(c.num_hidden_layers, 36);
  EXPECT_EQ(c.num_experts, 128);
  EXPECT_EQ(c.num_experts_per_token, 4);
  EXPECT_EQ(c.moe_intermediate_size, 2880);
  EXPECT_EQ(c.num_shared_experts, 0);
  EXPECT_EQ(c.first_k_dense, 0);
  EXPECT_EQ(c.expert_parallel, 1);
  EXPECT_FALSE(c.is_mla());
}

TEST(FindPreset, FindsByExactNameOnly) {
  ASSERT_NE(find_preset("llama3-8b"), nullptr);
  EXPECT_EQ(find_preset("llama3-8b")->name, "llama3-8b");
  EXPECT_EQ(find_preset("Llama3-8B"), nullptr);
  EXPECT_EQ(find_preset("llama3"), nullptr);
  EXPECT_EQ(find_preset(""), nullptr);
}

TEST(PresetNames, ListsAllInOrder) {
  EXPECT_EQ(preset_names(),
            "te-tutorial, llama3-8b, llama3-70b, llama3.1-405b, mixtral-8x7b, qwen3-30b-a3b, "
            "qwen3-235b-a22b, deepseek-v3, gpt-oss-120b");
}

TEST(ListModelsText, OneLinePerPresetWithKeyDimensions) {
  const std::string text = list_models_text();
  std::istringstream lines(text);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);)
    rows.push_back(line);
  ASSERT_EQ(rows.size(), model_presets().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ModelPreset& preset = model_presets()[i];
    const ModelConfig& c = preset.config;
    EXPECT_EQ(rows[i].rfind(preset.name + " ", 0), 0u) << rows[i];
    EXPECT_THAT(rows[i], HasSubstr("hidden=" + std::to_string(c.hidden_size) + " "));
    EXPECT_THAT(rows[i], HasSubstr("intermediate=" + std::to_string(c.intermediate_size)));
    EXPECT_THAT(rows[i], HasSubstr("kv_heads=" + std::to_string(c.num_key_value_heads)));
    EXPECT_THAT(rows[i], HasSubstr("layers=" + std::to_string(c.num_hidden_layers)));
    EXPECT_THAT(rows[i], HasSubstr(preset.description));
  }
  EXPECT_THAT(rows[0], HasSubstr("[default]"));
  EXPECT_THAT(rows[1], ::testing::Not(HasSubstr("[default]")));
  EXPECT_THAT(rows[2], HasSubstr("gated_mlp=true"));
}

TEST(ListModelsText, DenseLinesKeepTheirFormatAndMoeLinesShowTheExperts) {
  const std::string text = list_models_text();
  std::istringstream lines(text);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);)
    rows.push_back(line);
  ASSERT_EQ(rows.size(), model_presets().size());
  // A dense line: the name, padded to the longest name (qwen3-235b-a22b) plus 2, then the
  // dimensions, then the description.
  EXPECT_EQ(rows[1],
            "llama3-8b        hidden=4096 intermediate=14336 heads=32 kv_heads=8 layers=32 "
            "gated_mlp=true micro_batch=1 seq=8192  Meta Llama 3 8B (GQA, SwiGLU MLP), one "
            "8192-token sequence");
  for (size_t i = 0; i < rows.size(); ++i) {
    const ModelConfig& c = model_presets()[i].config;
    if (!c.is_moe()) {
      EXPECT_THAT(rows[i], ::testing::Not(HasSubstr("experts="))) << rows[i];
      continue;
    }
    EXPECT_THAT(rows[i], HasSubstr(" experts=" + std::to_string(c.num_experts) +
                                   " top_k=" + std::to_string(c.num_experts_per_token) +
                                   " moe_intermediate=" + std::to_string(c.moe_intermediate_size)));
  }
  EXPECT_THAT(rows[5], HasSubstr("seq=4096 head_dim=128 experts=128 top_k=8 moe_intermediate=768 "
                                 " Qwen3 30B-A3B"));
  EXPECT_THAT(rows[7], HasSubstr("experts=256 top_k=8 moe_intermediate=2048 shared_experts=1 "
                                 "first_k_dense=3 expert_parallel=8 mla  DeepSeek-V3"));
}

}  // namespace
}  // namespace gemmscope
