#include "shapes/layer_gemms.h"

namespace gemmscope {

std::vector<LinearOp> linear_ops(const ModelConfig& c) {
  validate(c);  // the divisions below are exact only for a valid config
  const int64_t tp = c.tensor_parallel;
  const int64_t qkv_width = (c.num_attention_heads + 2 * c.num_key_value_heads) * c.head_dim();
  const int64_t attention_width = c.num_attention_heads * c.head_dim();
  const int64_t mlp_up_width = (c.gated_mlp ? 2 : 1) * c.intermediate_size;
  return {
      {"qkv", c.hidden_size, qkv_width / tp},
      {"attn_out", attention_width / tp, c.hidden_size},
      {"mlp_up", c.hidden_size, mlp_up_width / tp},
      {"mlp_down", c.intermediate_size / tp, c.hidden_size},
  };
}

std::vector<LayerGemm> layer_gemms(const ModelConfig& config) {
  const std::vector<LinearOp> ops = linear_ops(config);
  std::vector<LayerGemm> gemms;
  gemms.reserve(3 * ops.size());
  for (Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
    for (const LinearOp& op : ops) {
      const LinearDims dims{config.tokens(), op.in_features, op.out_features};
      gemms.push_back({pass, op.op, dims, gemm_shape(pass, dims)});
    }
  }
  return gemms;
}

}  // namespace gemmscope
