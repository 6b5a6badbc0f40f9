#pragma once
// A transformer's dimensions and one training micro-batch, named after TransformerEngine's
// flags, from which the GEMMs of one layer are derived.

#include <cstdint>
#include <string>

namespace gemmscope {

struct ModelConfig {
  std::string name = "te-tutorial";  // preset name, or "custom" (see make_workload)
  int64_t hidden_size = 4096;
  int64_t intermediate_size = 16384;
  int64_t num_attention_heads = 32;
  int64_t num_key_value_heads = 32;  // fewer than the attention heads: grouped-query attention
  int64_t num_hidden_layers = 24;
  int64_t micro_batch_size = 31;
  int64_t sequence_length = 512;
  int64_t tensor_parallel = 1;
  bool gated_mlp = false;  // SwiGLU-style MLP: the up projection produces gate and value
  // Channels per attention head; 0 means hidden_size / num_attention_heads. Qwen3 and gpt-oss
  // publish a head_dim that is not that quotient.
  int64_t attention_head_dim = 0;

  // Mixture of experts; num_experts == 0 is a dense model and the fields below are unused.
  int64_t num_experts = 0;            // routed experts per MoE layer
  int64_t num_experts_per_token = 0;  // top-k
  int64_t moe_intermediate_size = 0;  // one expert's MLP width (gated like the dense MLP)
  int64_t num_shared_experts = 0;     // experts every token passes through (DeepSeek)
  int64_t first_k_dense = 0;          // leading layers with the dense MLP instead of experts
  // Ranks the experts are spread over. Each rank holds num_experts / expert_parallel experts
  // and its own micro-batch (expert parallelism is carved out of data parallelism, as in
  // Megatron-LM and DeepSeek-V3), so it receives tokens() x top-k routed rows on average.
  int64_t expert_parallel = 1;

  // Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank == 0 is ordinary attention.
  // 0: the query is one projection, hidden -> heads x (qk_nope + qk_rope), timed as op q_b
  // with no q_a (DeepSeek-V2-Lite); DeepSeek-V3 projects through a rank-1536 latent.
  int64_t q_lora_rank = 0;
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;

  int64_t tokens() const { return micro_batch_size * sequence_length; }
  int64_t head_dim() const {
    return attention_head_dim != 0 ? attention_head_dim : hidden_size / num_attention_heads;
  }
  bool is_moe() const { return num_experts != 0; }
  bool is_mla() const { return kv_lora_rank != 0; }
  int64_t dense_layers() const { return is_moe() ? first_k_dense : num_hidden_layers; }
  int64_t moe_layers() const { return num_hidden_layers - dense_layers(); }
  int64_t experts_per_rank() const { return num_experts / expert_parallel; }

  // "hidden_size=4096 intermediate_size=16384 ... gated_mlp=false tensor_parallel=1": the
  // config as flags a user could pass back (without the dashes), for the run's context. A given
  // head_dim, the MoE fields (num_experts ... expert_parallel) of a MoE model and the MLA fields
  // (q_lora_rank ... v_head_dim) of an MLA model follow, in that order; a dense model without
  // head_dim prints exactly the nine fields above.
  std::string describe() const;
};

// Throws std::invalid_argument naming the offending flag and value when the config cannot
// describe a model whose GEMMs gemmscope can launch:
// - a non-positive or too large value; head_dim, num_shared_experts, first_k_dense and
//   q_lora_rank may also be 0;
// - heads not dividing hidden_size (unless head_dim is given, or MLA sets the head widths), KV
//   heads not dividing heads, a tensor-parallel size not dividing the heads, KV heads, the
//   intermediate size (when a layer is dense) or the shared experts' width;
// - mixture of experts: a MoE field set while num_experts is 0 (the message says to set
//   --num_experts), more than 4096 experts, top-k outside 1..num_experts, no
//   moe_intermediate_size, first_k_dense not below num_hidden_layers (a MoE model has at least
//   one MoE layer), expert_parallel not dividing num_experts;
// - MLA: an MLA field set while kv_lora_rank is 0 (the message says to set --kv_lora_rank), a
//   head width missing, or head_dim given (MLA's head widths are its own);
// - a derived GEMM dimension above kMaxGemmDimension: tokens, the QKV or MLA projection widths,
//   the MLP, shared and expert up widths, and the rows the expert-parallel group routes
//   (tokens x top-k x expert_parallel, the most the timed rank can receive).
// Dense configs without head_dim are checked exactly as before MoE existed.
void validate(const ModelConfig& config);

}  // namespace gemmscope
