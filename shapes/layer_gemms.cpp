#include "shapes/layer_gemms.h"

#include <algorithm>
#include <stdexcept>

#include "shapes/routing.h"

namespace gemmscope {
namespace {

void add_op(std::vector<LinearOp>* ops, const char* op, int64_t in_features, int64_t out_features,
            int64_t layers) {
  if (layers > 0)
    ops->push_back({op, in_features, out_features, layers, is_grouped_op(op)});
}

// The groups of a grouped GEMM: the experts that got rows. An expert without rows launches
// nothing, in TransformerEngine's and Megatron-Core's grouped GEMMs alike.
std::vector<int64_t> groups_with_rows(const ModelConfig& config,
                                      const std::vector<int64_t>& expert_rows) {
  const std::vector<int64_t> rows =
      expert_rows.empty() ? route_tokens(config, Routing{}).rows : expert_rows;
  if (static_cast<int64_t>(rows.size()) != config.experts_per_rank()) {
    throw std::invalid_argument("layer_gemms: " + std::to_string(rows.size()) +
                                " expert row counts for a rank that holds " +
                                std::to_string(config.experts_per_rank()) + " experts");
  }
  std::vector<int64_t> groups;
  int64_t total = 0;
  for (const int64_t r : rows) {
    if (r < 0 || r > kMaxGemmDimension - total) {
      throw std::invalid_argument(
          "layer_gemms: expert rows must be non-negative and sum to at "
          "most " +
          std::to_string(kMaxGemmDimension));
    }
    total += r;
    if (r > 0)
      groups.push_back(r);
  }
  if (groups.empty())
    throw std::invalid_argument("layer_gemms: no rows are routed to the rank's experts");
  return groups;
}

}  // namespace

bool is_grouped_op(std::string_view op) {
  return op == "expert_up" || op == "expert_down";
}

std::vector<LinearOp> linear_ops(const ModelConfig& c) {
  validate(c);  // the divisions below are exact only for a valid config
  const int64_t tp = c.tensor_parallel;
  const int64_t gate = c.gated_mlp ? 2 : 1;
  const int64_t all = c.num_hidden_layers;
  std::vector<LinearOp> ops;
  if (c.is_mla()) {
    const int64_t heads = c.num_attention_heads;
    // Without a query latent (q_lora_rank 0) the query is one hidden -> heads projection.
    add_op(&ops, "q_a", c.hidden_size, c.q_lora_rank, c.q_lora_rank > 0 ? all : 0);
    add_op(&ops, "q_b", c.q_lora_rank > 0 ? c.q_lora_rank : c.hidden_size,
           heads * (c.qk_nope_head_dim + c.qk_rope_head_dim) / tp, all);
    add_op(&ops, "kv_a", c.hidden_size, c.kv_lora_rank + c.qk_rope_head_dim, all);
    add_op(&ops, "kv_b", c.kv_lora_rank, heads * (c.qk_nope_head_dim + c.v_head_dim) / tp, all);
    add_op(&ops, "attn_out", heads * c.v_head_dim / tp, c.hidden_size, all);
  } else {
    add_op(&ops, "qkv", c.hidden_size,
           (c.num_attention_heads + 2 * c.num_key_value_heads) * c.head_dim() / tp, all);
    add_op(&ops, "attn_out", c.num_attention_heads * c.head_dim() / tp, c.hidden_size, all);
  }
  add_op(&ops, "mlp_up", c.hidden_size, gate * c.intermediate_size / tp, c.dense_layers());
  add_op(&ops, "mlp_down", c.intermediate_size / tp, c.hidden_size, c.dense_layers());
  if (c.is_moe()) {
    const int64_t shared_width = c.num_shared_experts * c.moe_intermediate_size;
    const int64_t shared_layers = c.num_shared_experts > 0 ? c.moe_layers() : 0;
    add_op(&ops, "shared_up", c.hidden_size, gate * shared_width / tp, shared_layers);
    add_op(&ops, "shared_down", shared_width / tp, c.hidden_size, shared_layers);
    add_op(&ops, "expert_up", c.hidden_size, gate * c.moe_intermediate_size, c.moe_layers());
    add_op(&ops, "expert_down", c.moe_intermediate_size, c.hidden_size, c.moe_layers());
  }
  return ops;
}

std::vector<LayerGemm> layer_gemms(const ModelConfig& config,
                                   const std::vector<int64_t>& expert_rows) {
  const std::vector<LinearOp> ops = linear_ops(config);
  std::vector<int64_t> groups;
  int64_t routed_rows = 0;
  if (config.is_moe()) {
    groups = groups_with_rows(config, expert_rows);
    for (const int64_t r : groups)
      routed_rows += r;
  } else if (!expert_rows.empty()) {
    throw std::invalid_argument("layer_gemms: expert rows given for a dense model");
  }
  std::vector<LayerGemm> gemms;
  gemms.reserve(3 * ops.size());
  for (Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
    for (const LinearOp& op : ops) {
      const LinearDims dims{op.grouped ? routed_rows : config.tokens(), op.in_features,
                            op.out_features};
      gemms.push_back({pass, op.op, dims, gemm_shape(pass, dims), op.layers,
                       op.grouped ? groups : std::vector<int64_t>{}});
    }
  }
  return gemms;
}

}  // namespace gemmscope
