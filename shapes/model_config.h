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

  int64_t tokens() const { return micro_batch_size * sequence_length; }
  int64_t head_dim() const { return hidden_size / num_attention_heads; }

  // "hidden_size=4096 intermediate_size=16384 ... gated_mlp=false tensor_parallel=1": the
  // config as flags a user could pass back (without the dashes), for the run's context.
  std::string describe() const;
};

// Throws std::invalid_argument naming the offending flag and value when the config cannot
// describe a model whose GEMMs gemmscope can launch: a non-positive or too large value, heads
// not dividing hidden_size, KV heads not dividing heads, a tensor-parallel size not dividing
// the heads, KV heads and intermediate size, or a derived GEMM dimension (tokens, QKV width,
// MLP up width) above kMaxGemmDimension.
void validate(const ModelConfig& config);

}  // namespace gemmscope
