#include "shapes/presets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;

TEST(ModelPresets, TutorialFirstThenLlama3) {
  const std::vector<ModelPreset>& presets = model_presets();
  ASSERT_EQ(presets.size(), 3u);
  EXPECT_EQ(presets[0].name, "te-tutorial");
  EXPECT_EQ(presets[1].name, "llama3-8b");
  EXPECT_EQ(presets[2].name, "llama3-70b");
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

TEST(FindPreset, FindsByExactNameOnly) {
  ASSERT_NE(find_preset("llama3-8b"), nullptr);
  EXPECT_EQ(find_preset("llama3-8b")->name, "llama3-8b");
  EXPECT_EQ(find_preset("Llama3-8B"), nullptr);
  EXPECT_EQ(find_preset("llama3"), nullptr);
  EXPECT_EQ(find_preset(""), nullptr);
}

TEST(PresetNames, ListsAllInOrder) {
  EXPECT_EQ(preset_names(), "te-tutorial, llama3-8b, llama3-70b");
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

}  // namespace
}  // namespace gemmscope
