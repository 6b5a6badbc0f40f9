#include "shapes/workload.h"

#include <algorithm>
#include <stdexcept>

#include "shapes/gemm_shape.h"
#include "shapes/positive_integer.h"
#include "shapes/presets.h"
#include "shapes/shape_list.h"

namespace gemmscope {
namespace {

struct IntegerFlag {
  const char* name;
  int64_t ModelConfig::*field;
};

// The integer model flags, in workload_flag_names() order.
constexpr IntegerFlag kIntegerFlags[] = {
    {"hidden_size", &ModelConfig::hidden_size},
    {"intermediate_size", &ModelConfig::intermediate_size},
    {"num_attention_heads", &ModelConfig::num_attention_heads},
    {"num_key_value_heads", &ModelConfig::num_key_value_heads},
    {"num_hidden_layers", &ModelConfig::num_hidden_layers},
    {"micro_batch_size", &ModelConfig::micro_batch_size},
    {"sequence_length", &ModelConfig::sequence_length},
    {"tensor_parallel", &ModelConfig::tensor_parallel},
};
constexpr const char* kGatedMlp = "gated_mlp";
constexpr const char* kModel = "model";
constexpr const char* kShapes = "shapes";

std::string flag_text(const std::string& name, const std::string& value) {
  return "--" + name + "=" + value;
}

int64_t parse_integer_flag(const std::string& name, const std::string& value) {
  const PositiveIntegerParse parsed = parse_positive_integer(value, kMaxGemmDimension);
  if (!parsed.ok()) {
    throw std::invalid_argument(flag_text(name, value) + ": the value " + parsed.problem +
                                "; expected a positive integer up to " +
                                std::to_string(kMaxGemmDimension));
  }
  return parsed.value;
}

bool parse_bool_flag(const std::string& name, const std::string& value) {
  if (value == "true" || value == "1" || value == "on")
    return true;
  if (value == "false" || value == "0" || value == "off")
    return false;
  throw std::invalid_argument(flag_text(name, value) +
                              ": expected true, false, on, off, 1 or 0 (a bare --" + name +
                              " means true)");
}

void refuse_unknown_flags(const FlagValues& flags) {
  const auto& known = workload_flag_names();
  for (const auto& [name, value] : flags) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw std::invalid_argument(flag_text(name, value) + " is not a workload flag");
    }
  }
}

Workload shapes_workload(const FlagValues& flags) {
  std::string conflicting;
  for (const auto& [name, value] : flags) {
    if (name == kShapes)
      continue;
    conflicting += (conflicting.empty() ? "" : ", ") + flag_text(name, value);
  }
  if (!conflicting.empty()) {
    throw std::invalid_argument("--shapes cannot be combined with model flags (" + conflicting +
                                "): --shapes times the listed GEMMs as given, model flags "
                                "derive the GEMMs of a layer; use one or the other");
  }
  Workload workload;
  workload.kind = Workload::Kind::kShapes;
  workload.shapes_text = flags.at(kShapes);
  const std::vector<GemmShape> shapes = parse_shape_list(workload.shapes_text);
  for (size_t i = 0; i < shapes.size(); ++i) {
    workload.gemms.push_back({Pass::kFprop, "gemm" + std::to_string(i),
                              linear_dims(Pass::kFprop, shapes[i]), shapes[i]});
  }
  return workload;
}

ModelConfig starting_config(const FlagValues& flags) {
  const auto model = flags.find(kModel);
  if (model == flags.end())
    return model_presets().front().config;
  const ModelPreset* preset = find_preset(model->second);
  if (preset == nullptr) {
    throw std::invalid_argument(flag_text(kModel, model->second) +
                                " is not a known model; known models: " + preset_names() +
                                " (--list_models describes them)");
  }
  return preset->config;
}

Workload model_workload(const FlagValues& flags) {
  ModelConfig config = starting_config(flags);
  const bool had_grouped_query_attention = config.num_key_value_heads != config.num_attention_heads;
  bool overridden = false;
  for (const IntegerFlag& integer_flag : kIntegerFlags) {
    const auto it = flags.find(integer_flag.name);
    if (it == flags.end())
      continue;
    config.*integer_flag.field = parse_integer_flag(it->first, it->second);
    overridden = true;
  }
  if (const auto it = flags.find(kGatedMlp); it != flags.end()) {
    config.gated_mlp = parse_bool_flag(it->first, it->second);
    overridden = true;
  }
  if (!had_grouped_query_attention && flags.count("num_attention_heads") != 0 &&
      flags.count("num_key_value_heads") == 0) {
    config.num_key_value_heads = config.num_attention_heads;
  }
  if (overridden && flags.count(kModel) == 0)
    config.name = "custom";
  validate(config);

  Workload workload;
  workload.kind = Workload::Kind::kModel;
  workload.model = config;
  workload.gemms = layer_gemms(config);
  return workload;
}

}  // namespace

const std::vector<std::string>& workload_flag_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const IntegerFlag& integer_flag : kIntegerFlags)
      all.emplace_back(integer_flag.name);
    all.emplace_back(kGatedMlp);
    all.emplace_back(kModel);
    all.emplace_back(kShapes);
    return all;
  }();
  return names;
}

Workload make_workload(const FlagValues& flags) {
  refuse_unknown_flags(flags);
  return flags.count(kShapes) != 0 ? shapes_workload(flags) : model_workload(flags);
}

}  // namespace gemmscope
