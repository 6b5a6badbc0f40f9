#pragma once
// The linear layers of a transformer and the GEMMs (3 passes of each) they run per training
// step, on one rank: attention (qkv, or MLA's q_a, q_b, kv_a, kv_b), attn_out, the dense MLP
// (mlp_up, mlp_down), a mixture-of-experts layer's shared experts (shared_up, shared_down)
// and its routed experts (expert_up, expert_down: grouped GEMMs, one group per expert).

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "shapes/gemm_shape.h"
#include "shapes/model_config.h"

namespace gemmscope {

// Every op token of a model run, in report order. A --shapes run names its GEMMs gemm0, ...
inline constexpr std::array<std::string_view, 12> kLayerOps = {
    "qkv",    "q_a",      "q_b",       "kv_a",        "kv_b",      "attn_out",
    "mlp_up", "mlp_down", "shared_up", "shared_down", "expert_up", "expert_down"};

// expert_up and expert_down: grouped GEMMs, whose case names carry G:{groups}.
bool is_grouped_op(std::string_view op);

struct LinearOp {
  std::string op;  // a kLayerOps token
  int64_t in_features = 0;
  int64_t out_features = 0;
  int64_t layers = 0;    // how many of the model's layers hold this op
  bool grouped = false;  // one weight per expert on this rank (is_grouped_op(op))
};

// The ops of the model in kLayerOps order, as one rank holds them: attention (qkv, or with MLA
// q_a (only with q_lora_rank > 0), q_b, kv_a, kv_b) and attn_out in every layer; mlp_up and
// mlp_down in the dense layers (dense_layers()); shared_up and shared_down (with shared
// experts) and expert_up and expert_down in the MoE layers (moe_layers()). An op held by no
// layer is not listed. Gated MLPs double mlp_up, shared_up and expert_up alike. Attention, the
// dense MLP and the shared experts are split over tensor_parallel: qkv, q_b, kv_b, mlp_up and
// shared_up column-parallel (output features split), attn_out, mlp_down and shared_down
// row-parallel (input features split), q_a and kv_a replicated (as Megatron-LM does with
// MLA's down projections). Routed experts are split over expert_parallel only.
// Throws std::invalid_argument (see validate) for an invalid config.
std::vector<LinearOp> linear_ops(const ModelConfig& config);

struct LayerGemm {
  Pass pass = Pass::kFprop;
  std::string op;
  LinearDims dims;     // for a grouped op, tokens = the rows routed to all of the rank's experts
  GemmShape shape;     // gemm_shape(pass, dims)
  int64_t layers = 0;  // LinearOp::layers
  // Grouped ops: the GEMM's groups, the routed rows of each expert of the rank that got at
  // least one (shapes/routing.h), in expert order, summing to dims.tokens. Experts that got no
  // row are left out: they launch nothing, so the case's G is group_rows.size(), which may be
  // below experts_per_rank(). Empty for every other op.
  std::vector<int64_t> group_rows;

  bool grouped() const { return !group_rows.empty(); }
};

// The Fprop of every op, then their Dgrad, then their Wgrad (ops in linear_ops order). Grouped
// ops get `expert_rows` (routed rows per expert of the rank, experts_per_rank() entries, see
// route_tokens) without its zeros as group_rows, and their sum as dims.tokens; every other op
// has dims.tokens = tokens(). A MoE model given no `expert_rows` is routed balanced. Throws
// std::invalid_argument for an invalid config (see validate), for `expert_rows` of the wrong
// length, with a negative entry, summing to 0 or above kMaxGemmDimension, or given to a dense
// model. Dense models: the Fprop, Dgrad and Wgrad of qkv, attn_out, mlp_up, mlp_down.
std::vector<LayerGemm> layer_gemms(const ModelConfig& config,
                                   const std::vector<int64_t>& expert_rows = {});

}  // namespace gemmscope
