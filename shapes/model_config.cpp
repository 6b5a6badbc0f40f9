#include "shapes/model_config.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "shapes/gemm_shape.h"

namespace gemmscope {
namespace {

// The most routed experts per layer gemmscope accepts: 8x the most of any published config
// (Qwen3-Next, 512). It bounds the routing tables and the per-expert buffers a grouped case
// allocates, which grow with the experts, not with the GEMM sizes.
constexpr int64_t kMaxExperts = 4096;

std::string flag(const char* name, int64_t value) {
  return std::string("--") + name + "=" + std::to_string(value);
}

void require_in_range(const char* name, int64_t value) {
  if (value < 1 || value > kMaxGemmDimension) {
    throw std::invalid_argument(flag(name, value) + " must be a positive integer up to " +
                                std::to_string(kMaxGemmDimension));
  }
}

// For fields where 0 has a meaning of its own (`zero_means`).
void require_zero_or_in_range(const char* name, int64_t value, const char* zero_means) {
  if (value < 0 || value > kMaxGemmDimension) {
    throw std::invalid_argument(flag(name, value) + " must be 0 (" + zero_means +
                                ") or a positive integer up to " +
                                std::to_string(kMaxGemmDimension));
  }
}

void require_between(const char* name, int64_t value, int64_t low, const std::string& high,
                     int64_t high_value, const std::string& why) {
  if (value < low || value > high_value) {
    throw std::invalid_argument(flag(name, value) + " must be from " + std::to_string(low) +
                                " to " + high + " (" + why + ")");
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

// a x b for non-negative factors, saturating at INT64_MAX. A saturated product divided by at
// most kMaxGemmDimension still exceeds kMaxGemmDimension, so the checks below stay exact.
int64_t saturating_product(int64_t a, int64_t b) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return a != 0 && b > kMax / a ? kMax : a * b;
}

// A field that only a mixture-of-experts (or an MLA) model reads, set on a model that is not
// one: the user meant something the config does not say.
void refuse_if_set(const char* name, int64_t value, int64_t unset, const char* applies_to,
                   const char* needed) {
  if (value != unset) {
    throw std::invalid_argument(flag(name, value) + " applies to " + applies_to +
                                " models only: set " + needed + " too");
  }
}

void validate_moe_fields(const ModelConfig& c) {
  if (!c.is_moe()) {
    constexpr const char* kMoe = "mixture-of-experts";
    constexpr const char* kNeeded = "--num_experts (the routed experts per layer)";
    refuse_if_set("num_experts_per_token", c.num_experts_per_token, 0, kMoe, kNeeded);
    refuse_if_set("moe_intermediate_size", c.moe_intermediate_size, 0, kMoe, kNeeded);
    refuse_if_set("num_shared_experts", c.num_shared_experts, 0, kMoe, kNeeded);
    refuse_if_set("first_k_dense", c.first_k_dense, 0, kMoe, kNeeded);
    refuse_if_set("expert_parallel", c.expert_parallel, 1, kMoe, kNeeded);
    return;
  }
  require_between("num_experts", c.num_experts, 1, std::to_string(kMaxExperts), kMaxExperts,
                  "0 is a dense model; gemmscope's bound on routed experts per layer is " +
                      std::to_string(kMaxExperts));
  require_between("num_experts_per_token", c.num_experts_per_token, 1,
                  flag("num_experts", c.num_experts), c.num_experts,
                  "each token picks that many distinct experts");
  require_in_range("moe_intermediate_size", c.moe_intermediate_size);
  require_zero_or_in_range("num_shared_experts", c.num_shared_experts, "no shared expert");
  // At least one MoE layer: a config whose layers are all dense is the dense model, and a MoE
  // model always has grouped GEMMs to time.
  require_between("first_k_dense", c.first_k_dense, 0,
                  std::to_string(c.num_hidden_layers - 1) + ", below " +
                      flag("num_hidden_layers", c.num_hidden_layers),
                  c.num_hidden_layers - 1,
                  "a MoE model needs at least one MoE layer; for a dense model leave "
                  "--num_experts unset");
  require_in_range("expert_parallel", c.expert_parallel);
  require_divides("expert_parallel", c.expert_parallel, "num_experts", c.num_experts,
                  "each expert-parallel rank holds the same number of whole experts");
}

void validate_mla_fields(const ModelConfig& c) {
  if (!c.is_mla()) {
    constexpr const char* kMla = "multi-head latent attention";
    constexpr const char* kNeeded = "--kv_lora_rank";
    refuse_if_set("q_lora_rank", c.q_lora_rank, 0, kMla, kNeeded);
    refuse_if_set("qk_nope_head_dim", c.qk_nope_head_dim, 0, kMla, kNeeded);
    refuse_if_set("qk_rope_head_dim", c.qk_rope_head_dim, 0, kMla, kNeeded);
    refuse_if_set("v_head_dim", c.v_head_dim, 0, kMla, kNeeded);
    return;
  }
  require_in_range("kv_lora_rank", c.kv_lora_rank);
  require_zero_or_in_range("q_lora_rank", c.q_lora_rank,
                           "the query projected directly from the hidden state");
  require_in_range("qk_nope_head_dim", c.qk_nope_head_dim);
  require_in_range("qk_rope_head_dim", c.qk_rope_head_dim);
  require_in_range("v_head_dim", c.v_head_dim);
  if (c.attention_head_dim != 0) {
    throw std::invalid_argument(flag("head_dim", c.attention_head_dim) +
                                " does not apply to multi-head latent attention, whose head "
                                "widths are --qk_nope_head_dim, --qk_rope_head_dim and "
                                "--v_head_dim");
  }
}

void validate_attention_widths(const ModelConfig& c) {
  const std::string per_rank = " / " + flag("tensor_parallel", c.tensor_parallel);
  if (!c.is_mla()) {
    // The widest attention GEMM dimension: the attention output's input (heads x head_dim) is
    // part of it.
    const int64_t qkv_width_per_rank =
        saturating_product(c.num_attention_heads + 2 * c.num_key_value_heads, c.head_dim()) /
        c.tensor_parallel;
    require_gemm_dimension(qkv_width_per_rank,
                           "the QKV output width per rank (" +
                               flag("num_attention_heads", c.num_attention_heads) + " + 2 x " +
                               flag("num_key_value_heads", c.num_key_value_heads) +
                               ") x head_dim " + std::to_string(c.head_dim()) + per_rank);
    return;
  }
  const int64_t heads_per_rank = c.num_attention_heads / c.tensor_parallel;
  const std::string heads = flag("num_attention_heads", c.num_attention_heads);
  require_gemm_dimension(
      saturating_product(heads_per_rank, c.qk_nope_head_dim + c.qk_rope_head_dim),
      "the MLA query width per rank " + heads + " x (" +
          flag("qk_nope_head_dim", c.qk_nope_head_dim) + " + " +
          flag("qk_rope_head_dim", c.qk_rope_head_dim) + ")" + per_rank);
  require_gemm_dimension(c.kv_lora_rank + c.qk_rope_head_dim,
                         "the MLA key-value down projection width " +
                             flag("kv_lora_rank", c.kv_lora_rank) + " + " +
                             flag("qk_rope_head_dim", c.qk_rope_head_dim));
  // kv_b's output holds the attention output's input (heads x v_head_dim) too.
  require_gemm_dimension(saturating_product(heads_per_rank, c.qk_nope_head_dim + c.v_head_dim),
                         "the MLA key-value up projection width per rank " + heads + " x (" +
                             flag("qk_nope_head_dim", c.qk_nope_head_dim) + " + " +
                             flag("v_head_dim", c.v_head_dim) + ")" + per_rank);
}

void validate_mlp_widths(const ModelConfig& c) {
  const int64_t gate = c.gated_mlp ? 2 : 1;
  const std::string gated = c.gated_mlp ? " x 2 (--gated_mlp=true)" : "";
  const std::string per_rank = " / " + flag("tensor_parallel", c.tensor_parallel);
  if (c.dense_layers() > 0) {
    require_gemm_dimension(gate * c.intermediate_size / c.tensor_parallel,
                           "the MLP up output width per rank " +
                               flag("intermediate_size", c.intermediate_size) + gated + per_rank);
  }
  if (!c.is_moe())
    return;
  require_gemm_dimension(gate * c.moe_intermediate_size,
                         "an expert's up output width " +
                             flag("moe_intermediate_size", c.moe_intermediate_size) + gated);
  require_gemm_dimension(
      saturating_product(gate * c.num_shared_experts, c.moe_intermediate_size) / c.tensor_parallel,
      "the shared experts' up output width per rank " +
          flag("num_shared_experts", c.num_shared_experts) + " x " +
          flag("moe_intermediate_size", c.moe_intermediate_size) + gated + per_rank);
  // Every rank of the expert-parallel group routes its own micro-batch; the most loaded rank
  // receives at most all of the group's routed rows.
  require_gemm_dimension(saturating_product(saturating_product(c.tokens(), c.num_experts_per_token),
                                            c.expert_parallel),
                         "the rows routed by the expert-parallel group, tokens " +
                             std::to_string(c.tokens()) + " x " +
                             flag("num_experts_per_token", c.num_experts_per_token) + " x " +
                             flag("expert_parallel", c.expert_parallel));
}

std::string field(const char* name, int64_t value) {
  return std::string(" ") + name + "=" + std::to_string(value);
}

}  // namespace

std::string ModelConfig::describe() const {
  std::string text =
      "hidden_size=" + std::to_string(hidden_size) + field("intermediate_size", intermediate_size) +
      field("num_attention_heads", num_attention_heads) +
      field("num_key_value_heads", num_key_value_heads) +
      field("num_hidden_layers", num_hidden_layers) + field("micro_batch_size", micro_batch_size) +
      field("sequence_length", sequence_length) + " gated_mlp=" + (gated_mlp ? "true" : "false") +
      field("tensor_parallel", tensor_parallel);
  // The fields a dense model with derived head width leaves unset are left out, so that such a
  // config describes itself exactly as it did before they existed.
  if (attention_head_dim != 0)
    text += field("head_dim", attention_head_dim);
  if (is_moe()) {
    text += field("num_experts", num_experts) +
            field("num_experts_per_token", num_experts_per_token) +
            field("moe_intermediate_size", moe_intermediate_size) +
            field("num_shared_experts", num_shared_experts) +
            field("first_k_dense", first_k_dense) + field("expert_parallel", expert_parallel);
  }
  if (is_mla()) {
    text += field("q_lora_rank", q_lora_rank) + field("kv_lora_rank", kv_lora_rank) +
            field("qk_nope_head_dim", qk_nope_head_dim) +
            field("qk_rope_head_dim", qk_rope_head_dim) + field("v_head_dim", v_head_dim);
  }
  return text;
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
  require_zero_or_in_range("head_dim", c.attention_head_dim, "hidden_size / num_attention_heads");
  validate_moe_fields(c);
  validate_mla_fields(c);

  // With a given head_dim (or MLA's own head widths) the heads need not split hidden_size.
  if (c.attention_head_dim == 0 && !c.is_mla()) {
    require_divides("num_attention_heads", c.num_attention_heads, "hidden_size", c.hidden_size,
                    "every head has hidden_size / num_attention_heads channels");
  }
  require_divides("num_key_value_heads", c.num_key_value_heads, "num_attention_heads",
                  c.num_attention_heads, "each KV head serves a whole group of query heads");
  require_divides("tensor_parallel", c.tensor_parallel, "num_attention_heads",
                  c.num_attention_heads, "each rank holds whole attention heads");
  require_divides("tensor_parallel", c.tensor_parallel, "num_key_value_heads",
                  c.num_key_value_heads, "each rank holds whole KV heads");
  // A MoE model whose layers all hold experts never runs its dense MLP width.
  if (c.dense_layers() > 0) {
    require_divides("tensor_parallel", c.tensor_parallel, "intermediate_size", c.intermediate_size,
                    "each rank holds an equal slice of the MLP");
  }
  if (c.is_moe() && c.num_shared_experts > 0) {
    // Bounded by kMaxGemmDimension^2: no overflow.
    const int64_t shared_width = c.num_shared_experts * c.moe_intermediate_size;
    if (shared_width % c.tensor_parallel != 0) {
      throw std::invalid_argument(
          flag("tensor_parallel", c.tensor_parallel) + " must divide the shared experts' width " +
          flag("num_shared_experts", c.num_shared_experts) + " x " +
          flag("moe_intermediate_size", c.moe_intermediate_size) + " = " +
          std::to_string(shared_width) + " (each rank holds an equal slice of it)");
    }
  }

  require_gemm_dimension(c.tokens(), flag("micro_batch_size", c.micro_batch_size) + " x " +
                                         flag("sequence_length", c.sequence_length) + " tokens");
  validate_attention_widths(c);
  validate_mlp_widths(c);
}

}  // namespace gemmscope
