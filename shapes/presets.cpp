#include "shapes/presets.h"

#include <algorithm>
#include <sstream>

namespace gemmscope {
namespace {

ModelPreset te_tutorial() {
  ModelPreset preset;
  preset.name = "te-tutorial";
  preset.description =
      "TransformerEngine's GEMM benchmark tutorial config (ModelConfig's defaults): "
      "15872 tokens per micro-batch";
  preset.config.name = preset.name;  // every other field keeps ModelConfig's defaults
  return preset;
}

// Llama 3 dimensions as published in Meta's Hugging Face config.json files; micro-batch 1 at
// the 8192-token context Llama 3 was pre-trained with.
ModelPreset llama3(const char* name, const char* description, int64_t hidden_size,
                   int64_t intermediate_size, int64_t num_attention_heads,
                   int64_t num_hidden_layers) {
  ModelPreset preset;
  preset.name = name;
  preset.description = description;
  ModelConfig& c = preset.config;
  c.name = name;
  c.hidden_size = hidden_size;
  c.intermediate_size = intermediate_size;
  c.num_attention_heads = num_attention_heads;
  c.num_key_value_heads = 8;
  c.num_hidden_layers = num_hidden_layers;
  c.micro_batch_size = 1;
  c.sequence_length = 8192;
  c.tensor_parallel = 1;
  c.gated_mlp = true;
  return preset;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = {
      te_tutorial(),
      llama3("llama3-8b", "Meta Llama 3 8B (GQA, SwiGLU MLP), one 8192-token sequence", 4096, 14336,
             32, 32),
      llama3("llama3-70b", "Meta Llama 3 70B (GQA, SwiGLU MLP), one 8192-token sequence", 8192,
             28672, 64, 80),
  };
  return presets;
}

const ModelPreset* find_preset(std::string_view name) {
  const auto& presets = model_presets();
  const auto it = std::find_if(presets.begin(), presets.end(),
                               [name](const ModelPreset& p) { return p.name == name; });
  return it == presets.end() ? nullptr : &*it;
}

std::string preset_names() {
  std::string names;
  for (const ModelPreset& preset : model_presets()) {
    if (!names.empty())
      names += ", ";
    names += preset.name;
  }
  return names;
}

std::string list_models_text() {
  size_t name_width = 0;
  for (const ModelPreset& preset : model_presets()) {
    name_width = std::max(name_width, preset.name.size());
  }
  std::ostringstream out;
  for (const ModelPreset& preset : model_presets()) {
    const ModelConfig& c = preset.config;
    out << preset.name << std::string(name_width - preset.name.size() + 2, ' ')
        << "hidden=" << c.hidden_size << " intermediate=" << c.intermediate_size
        << " heads=" << c.num_attention_heads << " kv_heads=" << c.num_key_value_heads
        << " layers=" << c.num_hidden_layers << " gated_mlp=" << (c.gated_mlp ? "true" : "false")
        << " micro_batch=" << c.micro_batch_size << " seq=" << c.sequence_length << "  "
        << preset.description << (&preset == &model_presets().front() ? " [default]" : "") << "\n";
  }
  return out.str();
}

}  // namespace gemmscope
