#pragma once
// What one gemm_bench run times, from gemmscope's model flags: the GEMMs of a model's layers
// (model mode: 3 passes of each op, 12 GEMMs for a dense model) or a list of GEMMs as given
// (--shapes mode).

#include <map>
#include <string>
#include <vector>

#include "shapes/layer_gemms.h"
#include "shapes/model_config.h"
#include "shapes/routing.h"

namespace gemmscope {

// Flag name without "--" -> value as typed; a bare boolean flag arrives as "true".
using FlagValues = std::map<std::string, std::string>;

// hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, num_hidden_layers,
// micro_batch_size, sequence_length, tensor_parallel, head_dim, num_experts,
// num_experts_per_token, moe_intermediate_size, num_shared_experts, first_k_dense,
// expert_parallel, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
// gated_mlp, routing, model, shapes.
const std::vector<std::string>& workload_flag_names();

struct Workload {
  enum class Kind { kModel, kShapes } kind = Kind::kModel;
  ModelConfig model;             // the validated config (kModel); left at its default for kShapes
  std::string shapes_text;       // the --shapes value as given (kShapes)
  std::vector<LayerGemm> gemms;  // kModel: layer_gemms(model, expert_routing.rows); kShapes:
                                 // one Fprop per shape, op "gemm{i}" (0-based),
                                 // dims = linear_dims(Fprop, shape), layers 1
  Routing routing;               // --routing (balanced unless given); MoE models only
  RankRouting expert_routing;    // MoE models: route_tokens(model, routing); otherwise empty
};

// Rules:
// - No flags: the te-tutorial preset.
// - --model=NAME starts from that preset; model flags given with it override its values and
//   the name stays NAME. Model flags without --model override te-tutorial's values and the
//   name becomes "custom".
// - When --num_attention_heads is given without --num_key_value_heads and the starting config
//   has no grouped-query attention (KV heads == heads), the KV heads follow the new head count,
//   as Hugging Face's num_key_value_heads defaults to num_attention_heads; otherwise the
//   starting config's KV heads are kept.
// - --gated_mlp takes true/false/1/0 (and on/off).
// - Integer flags take positive integers; --num_shared_experts and --first_k_dense take 0 too.
// - The mixture-of-experts flags (--num_experts ... --expert_parallel) and --routing
//   (balanced | skewed[:ALPHA], see parse_routing) are refused, whatever their value, when the
//   resulting model is dense (num_experts 0): set --num_experts or pick a MoE preset.
// - --shapes cannot be combined with any other workload flag.
// Throws std::invalid_argument naming the flag and value for any bad value, an unknown
// preset (listing the known ones), mixing --shapes with model flags, MoE flags for a dense
// model, an invalid config (see validate), or a flag name that is not in
// workload_flag_names().
Workload make_workload(const FlagValues& flags);

}  // namespace gemmscope
