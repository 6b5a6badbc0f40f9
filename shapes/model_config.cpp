#include "shapes/model_config.h"

#include <stdexcept>
#include <string>

#include "shapes/gemm_shape.h"

namespace gemmscope {
namespace {

std::string flag(const char* name, int64_t value) {
  return std::string("--") + name + "=" + std::to_string(value);
}

void require_in_range(const char* name, int64_t value) {
  if (value < 1 || value > kMaxGemmDimension) {
    throw std::invalid_argument(flag(name, value) + " must be a positive integer up to " +
                                std::to_string(kMaxGemmDimension));
  }
}

void require_divides(const char* divisor_name, int64_t divisor, const char* dividend_name,
                     int64_t dividend, const char* why) {
  if (dividend % divisor != 0) {
    throw std::invalid_argument(flag(divisor_name, divisor) + " must divide " +
                                flag(dividend_name, dividend) + " (" + why + ")");
  }
}

void require_gemm_dimension(int64_t value, const std::string& what) {
  if (value > kMaxGemmDimension) {
    throw std::invalid_argument(what + " = " + std::to_string(value) +
                                " exceeds the largest GEMM dimension gemmscope launches, " +
                                std::to_string(kMaxGemmDimension) + " (int32 for cuBLASLt)");
  }
}

}  // namespace

std::string ModelConfig::describe() const {
  return "hidden_size=" + std::to_string(hidden_size) +
         " intermediate_size=" + std::to_string(intermediate_size) +
         " num_attention_heads=" + std::to_string(num_attention_heads) +
         " num_key_value_heads=" + std::to_string(num_key_value_heads) +
         " num_hidden_layers=" + std::to_string(num_hidden_layers) +
         " micro_batch_size=" + std::to_string(micro_batch_size) +
         " sequence_length=" + std::to_string(sequence_length) +
         " gated_mlp=" + (gated_mlp ? "true" : "false") +
         " tensor_parallel=" + std::to_string(tensor_parallel);
}

void validate(const ModelConfig& c) {
  // Bounding every value by kMaxGemmDimension first keeps the products below free of overflow.
  require_in_range("hidden_size", c.hidden_size);
  require_in_range("intermediate_size", c.intermediate_size);
  require_in_range("num_attention_heads", c.num_attention_heads);
  require_in_range("num_key_value_heads", c.num_key_value_heads);
  require_in_range("num_hidden_layers", c.num_hidden_layers);
  require_in_range("micro_batch_size", c.micro_batch_size);
  require_in_range("sequence_length", c.sequence_length);
  require_in_range("tensor_parallel", c.tensor_parallel);

  require_divides("num_attention_heads", c.num_attention_heads, "hidden_size", c.hidden_size,
                  "every head has hidden_size / num_attention_heads channels");
  require_divides("num_key_value_heads", c.num_key_value_heads, "num_attention_heads",
                  c.num_attention_heads, "each KV head serves a whole group of query heads");
  require_divides("tensor_parallel", c.tensor_parallel, "num_attention_heads",
                  c.num_attention_heads, "each rank holds whole attention heads");
  require_divides("tensor_parallel", c.tensor_parallel, "num_key_value_heads",
                  c.num_key_value_heads, "each rank holds whole KV heads");
  require_divides("tensor_parallel", c.tensor_parallel, "intermediate_size", c.intermediate_size,
                  "each rank holds an equal slice of the MLP");

  require_gemm_dimension(c.tokens(), flag("micro_batch_size", c.micro_batch_size) + " x " +
                                         flag("sequence_length", c.sequence_length) + " tokens");
  // KV heads divide the heads, so the QKV width is at most 3 x hidden_size: no overflow.
  const int64_t qkv_width_per_rank =
      (c.num_attention_heads + 2 * c.num_key_value_heads) * c.head_dim() / c.tensor_parallel;
  require_gemm_dimension(
      qkv_width_per_rank,
      "the QKV output width per rank (" + flag("num_attention_heads", c.num_attention_heads) +
          " + 2 x " + flag("num_key_value_heads", c.num_key_value_heads) + ") x head_dim " +
          std::to_string(c.head_dim()) + " / " + flag("tensor_parallel", c.tensor_parallel));
  const int64_t mlp_up_width_per_rank =
      (c.gated_mlp ? 2 : 1) * c.intermediate_size / c.tensor_parallel;
  require_gemm_dimension(mlp_up_width_per_rank, "the MLP up output width per rank " +
                                                    flag("intermediate_size", c.intermediate_size) +
                                                    (c.gated_mlp ? " x 2 (--gated_mlp=true)" : "") +
                                                    " / " +
                                                    flag("tensor_parallel", c.tensor_parallel));
}

}  // namespace gemmscope
