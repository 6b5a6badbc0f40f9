#pragma once
// Named model configs selectable with --model=NAME and listed by --list_models.

#include <string>
#include <string_view>
#include <vector>

#include "shapes/model_config.h"

namespace gemmscope {

struct ModelPreset {
  std::string name;
  std::string description;
  ModelConfig config;  // config.name == name
};

// "te-tutorial" first (the default), then the published Llama 3 configs.
const std::vector<ModelPreset>& model_presets();

// nullptr if no preset has that exact name.
const ModelPreset* find_preset(std::string_view name);

// "te-tutorial, llama3-8b, llama3-70b": for messages about an unknown name.
std::string preset_names();

// What --list_models prints: one line per preset, name, key dimensions, description.
std::string list_models_text();

}  // namespace gemmscope
