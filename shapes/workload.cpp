#include "shapes/workload.h"

#include <algorithm>
#include <stdexcept>

#include "shapes/gemm_shape.h"
#include "shapes/positive_integer.h"
#include "shapes/presets.h"
#include "shapes/routing.h"
#include "shapes/shape_list.h"

namespace gemmscope {
namespace {

struct IntegerFlag {
  const char* name;
  int64_t ModelConfig::*field;
  bool zero_allowed;  // a count that may be 0; every other integer flag is positive
  // Read by mixture-of-experts models only: given for a dense model it is refused, whatever
  // its value, as the user meant a model the config does not describe.
  bool moe_only;
};

// The integer model flags, in workload_flag_names() order.
constexpr IntegerFlag kIntegerFlags[] = {
    {"hidden_size", &ModelConfig::hidden_size, false, false},
    {"intermediate_size", &ModelConfig::intermediate_size, false, false},
    {"num_attention_heads", &ModelConfig::num_attention_heads, false, false},
    {"num_key_value_heads", &ModelConfig::num_key_value_heads, false, false},
    {"num_hidden_layers", &ModelConfig::num_hidden_layers, false, false},
    {"micro_batch_size", &ModelConfig::micro_batch_size, false, false},
    {"sequence_length", &ModelConfig::sequence_length, false, false},
    {"tensor_parallel", &ModelConfig::tensor_parallel, false, false},
    {"head_dim", &ModelConfig::attention_head_dim, false, false},
    {"num_experts", &ModelConfig::num_experts, false, true},
    {"num_experts_per_token", &ModelConfig::num_experts_per_token, false, true},
    {"moe_intermediate_size", &ModelConfig::moe_intermediate_size, false, true},
    {"num_shared_experts", &ModelConfig::num_shared_experts, true, true},
    {"first_k_dense", &ModelConfig::first_k_dense, true, true},
    {"expert_parallel", &ModelConfig::expert_parallel, false, true},
    // MLA's flags are all positive: validate() refuses any of them without --kv_lora_rank.
    {"q_lora_rank", &ModelConfig::q_lora_rank, false, false},
    {"kv_lora_rank", &ModelConfig::kv_lora_rank, false, false},
    {"qk_nope_head_dim", &ModelConfig::qk_nope_head_dim, false, false},
    {"qk_rope_head_dim", &ModelConfig::qk_rope_head_dim, false, false},
    {"v_head_dim", &ModelConfig::v_head_dim, false, false},
};
constexpr const char* kGatedMlp = "gated_mlp";
constexpr const char* kRouting = "routing";
constexpr const char* kModel = "model";
constexpr const char* kShapes = "shapes";

std::string flag_text(const std::string& name, const std::string& value) {
  return "--" + name + "=" + value;
}

int64_t parse_integer_flag(const IntegerFlag& integer_flag, const std::string& value) {
  const PositiveIntegerParse parsed = integer_flag.zero_allowed
                                          ? parse_non_negative_integer(value, kMaxGemmDimension)
                                          : parse_positive_integer(value, kMaxGemmDimension);
  if (!parsed.ok()) {
    throw std::invalid_argument(
        flag_text(integer_flag.name, value) + ": the value " + parsed.problem + "; expected " +
        (integer_flag.zero_allowed ? "0 or a positive integer" : "a positive integer") + " up to " +
        std::to_string(kMaxGemmDimension));
  }
  return parsed.value;
}

// The mixture-of-experts flags (and --routing) given for a model that is dense.
void refuse_moe_flags_for_dense(const FlagValues& flags, const ModelConfig& config) {
  if (config.is_moe())
    return;
  std::string given;
  for (const IntegerFlag& integer_flag : kIntegerFlags) {
    const auto it = flags.find(integer_flag.name);
    if (integer_flag.moe_only && it != flags.end())
      given += (given.empty() ? "" : ", ") + flag_text(it->first, it->second);
  }
  if (const auto it = flags.find(kRouting); it != flags.end())
    given += (given.empty() ? "" : ", ") + flag_text(it->first, it->second);
  if (!given.empty()) {
    throw std::invalid_argument(given + ": mixture-of-experts flags, but the model (" +
                                config.name +
                                ") is dense: set --num_experts too, or pick a mixture-of-experts "
                                "preset with --model (--list_models lists them)");
  }
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
    const LinearDims dims = linear_dims(Pass::kFprop, shapes[i]);
    // Each listed GEMM counts once (layers 1) and has no groups.
    workload.gemms.push_back({Pass::kFprop, "gemm" + std::to_string(i), dims, shapes[i], 1, {}});
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
    config.*integer_flag.field = parse_integer_flag(integer_flag, it->second);
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
  refuse_moe_flags_for_dense(flags, config);
  validate(config);

  Workload workload;
  workload.kind = Workload::Kind::kModel;
  workload.model = config;
  if (config.is_moe()) {
    if (const auto it = flags.find(kRouting); it != flags.end())
      workload.routing = parse_routing(it->second);
    workload.expert_routing = route_tokens(config, workload.routing);
  }
  workload.gemms = layer_gemms(config, workload.expert_routing.rows);
  return workload;
}

}  // namespace

const std::vector<std::string>& workload_flag_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const IntegerFlag& integer_flag : kIntegerFlags)
      all.emplace_back(integer_flag.name);
    all.emplace_back(kGatedMlp);
    all.emplace_back(kRouting);
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
