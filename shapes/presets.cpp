#include "shapes/presets.h"

#include <algorithm>
#include <sstream>

namespace gemmscope {
namespace {

ModelPreset te_tutorial() {
  ModelPreset preset;
  preset.name = "te-tutorial";
  preset.description =
      "TransformerEngine's GEMM benchmark tutorial config (ModelConfig's defaults): "
      "15872 tokens per micro-batch";
  preset.config.name = preset.name;  // every other field keeps ModelConfig's defaults
  return preset;
}

// Llama 3 dimensions as published in Meta's Hugging Face config.json files; micro-batch 1 at
// the 8192-token context Llama 3 was pre-trained with.
ModelPreset llama3(const char* name, const char* description, int64_t hidden_size,
                   int64_t intermediate_size, int64_t num_attention_heads,
                   int64_t num_hidden_layers) {
  ModelPreset preset;
  preset.name = name;
  preset.description = description;
  ModelConfig& c = preset.config;
  c.name = name;
  c.hidden_size = hidden_size;
  c.intermediate_size = intermediate_size;
  c.num_attention_heads = num_attention_heads;
  c.num_key_value_heads = 8;
  c.num_hidden_layers = num_hidden_layers;
  c.micro_batch_size = 1;
  c.sequence_length = 8192;
  c.tensor_parallel = 1;
  c.gated_mlp = true;
  return preset;
}

// What every mixture-of-experts preset shares: micro-batch 1 of 4096 tokens, the sequence
// length DeepSeek-V3 was pre-trained at (arXiv:2412.19437, "maximum sequence length 4K"; its
// config.json's original_max_position_embeddings is 4096) and Qwen3's general and reasoning
// pre-training stages used (arXiv:2505.09388, S1 and S2 at 4,096 tokens), and gpt-oss's
// initial_context_length; one value for all keeps the MoE presets comparable per token. SwiGLU
// experts (gated), no tensor parallelism, every expert on the one GPU timed (expert_parallel 1)
// unless a preset says otherwise.
ModelPreset moe_preset(const char* name, const char* description) {
  ModelPreset preset;
  preset.name = name;
  preset.description = description;
  ModelConfig& c = preset.config;
  c.name = name;
  c.micro_batch_size = 1;
  c.sequence_length = 4096;
  c.tensor_parallel = 1;
  c.gated_mlp = true;
  c.expert_parallel = 1;
  return preset;
}

// Source: Hugging Face mistralai/Mixtral-8x7B-Instruct-v0.1, config.json at commit
// eba92302a2861cdc0098cc54bc9f17cb2c47eb61 (the instruct model shares the v0.1 base model's
// architecture). Mixtral's config has no moe_intermediate_size: its intermediate_size (14336)
// is each expert's width, and as every layer is a MoE layer the dense MLP width is unused.
// The Mixtral paper trained at a 32k context; 4096 here as for the other MoE presets
// (--sequence_length=32768 for that).
ModelPreset mixtral_8x7b() {
  ModelPreset preset = moe_preset(
      "mixtral-8x7b", "Mistral Mixtral 8x7B (8 experts, top-2, GQA), one 4096-token sequence");
  ModelConfig& c = preset.config;
  c.hidden_size = 4096;
  c.intermediate_size = 14336;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.num_hidden_layers = 32;
  c.num_experts = 8;  // num_local_experts
  c.num_experts_per_token = 2;
  c.moe_intermediate_size = 14336;
  return preset;
}

// Source: Qwen's Hugging Face config.json of Qwen/Qwen3-30B-A3B (transformers 4.51.0), as
// copied in github.com/alibaba/InferSim hf_configs/qwen3-30B-A3B_config.json at commit
// c1c36d6534170a993fecb4d1d0709022c4e2226d. head_dim 128 is not hidden / heads (64).
// Every layer is a MoE layer (decoder_sparse_step 1, mlp_only_layers []): intermediate_size
// 6144 is config.json's value, unused here.
ModelPreset qwen3_30b_a3b() {
  ModelPreset preset = moe_preset(
      "qwen3-30b-a3b", "Qwen3 30B-A3B (128 experts, top-8, GQA), one 4096-token sequence");
  ModelConfig& c = preset.config;
  c.hidden_size = 2048;
  c.intermediate_size = 6144;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 4;
  c.attention_head_dim = 128;
  c.num_hidden_layers = 48;
  c.num_experts = 128;
  c.num_experts_per_token = 8;
  c.moe_intermediate_size = 768;
  return preset;
}

// Source: Qwen's Hugging Face config.json of Qwen/Qwen3-235B-A22B, as copied in
// github.com/alibaba/InferSim hf_configs/qwen3-235B-A22B_config.json at commit
// 7cf43ea4a89c154518569193cc4e573587c2fd5b (that copy carries the 2507 refresh's longer context,
// max_position_embeddings 262144; the GEMM dimensions are those of the first release).
// head_dim 128 is not hidden / heads (64). Every layer is a MoE layer: intermediate_size 12288
// is config.json's value, unused here.
ModelPreset qwen3_235b_a22b() {
  ModelPreset preset = moe_preset(
      "qwen3-235b-a22b", "Qwen3 235B-A22B (128 experts, top-8, GQA), one 4096-token sequence");
  ModelConfig& c = preset.config;
  c.hidden_size = 4096;
  c.intermediate_size = 12288;
  c.num_attention_heads = 64;
  c.num_key_value_heads = 4;
  c.attention_head_dim = 128;
  c.num_hidden_layers = 94;
  c.num_experts = 128;
  c.num_experts_per_token = 8;
  c.moe_intermediate_size = 1536;
  return preset;
}

// Source: github.com/deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json at commit
// 9b4e9788e4a3a731f7567338ed15d3ec549ce03b (dim, inter_dim, moe_inter_dim, n_layers,
// n_dense_layers, n_heads, n_routed_experts, n_shared_experts, n_activated_experts and the
// MLA ranks); the Hugging Face config.json names them hidden_size, intermediate_size,
// moe_intermediate_size, ..., first_k_dense_replace 3, num_key_value_heads 128. The first 3
// layers have the dense MLP (intermediate 18432), the other 58 one shared and 256 routed
// experts. The multi-token-prediction module (one more layer, in training only) is not counted.
// Expert parallelism 8, one 8-GPU node: with all 256 experts on one GPU a layer's expert
// weights alone (up and down) take about 22 GB in BF16, too much for the cases of a group to
// share one GPU. DeepSeek-V3 itself trained with 64-way expert parallelism over 8 nodes.
ModelPreset deepseek_v3() {
  ModelPreset preset = moe_preset("deepseek-v3",
                                  "DeepSeek-V3 671B (MLA; 3 dense layers, then 1 shared and 256 "
                                  "routed experts, top-8), one 4096-token sequence on each of 8 "
                                  "expert-parallel ranks");
  ModelConfig& c = preset.config;
  c.hidden_size = 7168;
  c.intermediate_size = 18432;
  c.num_attention_heads = 128;
  c.num_key_value_heads = 128;  // MLA: no grouped-query attention
  c.num_hidden_layers = 61;
  c.num_experts = 256;
  c.num_experts_per_token = 8;
  c.moe_intermediate_size = 2048;
  c.num_shared_experts = 1;
  c.first_k_dense = 3;
  c.expert_parallel = 8;
  c.q_lora_rank = 1536;
  c.kv_lora_rank = 512;
  c.qk_nope_head_dim = 128;
  c.qk_rope_head_dim = 64;
  c.v_head_dim = 128;
  return preset;
}

// Source: github.com/openai/gpt-oss gpt_oss/torch/model.py, ModelConfig's defaults (the 120b
// model; the same values as original/config.json of Hugging Face openai/gpt-oss-120b) at
// commit 7b583341fe16729127f6d5b94a7b09ccae97e1a1: its MLP weights are [experts, 2 x
// intermediate, hidden] and [experts, hidden, intermediate], a gated expert of width 2880.
// Every layer is a MoE layer, so intermediate_size (2880, also the expert width) is unused.
// head_dim 64 is not hidden / heads (45). What gpt-oss has and gemmscope does not model: biases
// on the QKV, output and expert projections, attention sinks, and a 128-token sliding window
// on every other layer; none of them changes a GEMM's shape.
ModelPreset gpt_oss_120b() {
  ModelPreset preset = moe_preset(
      "gpt-oss-120b", "OpenAI gpt-oss-120b (128 experts, top-4, GQA), one 4096-token sequence");
  ModelConfig& c = preset.config;
  c.hidden_size = 2880;
  c.intermediate_size = 2880;
  c.num_attention_heads = 64;
  c.num_key_value_heads = 8;
  c.attention_head_dim = 64;
  c.num_hidden_layers = 36;
  c.num_experts = 128;
  c.num_experts_per_token = 4;
  c.moe_intermediate_size = 2880;
  return preset;
}

// Source: github.com/meta-llama/llama-models models/sku_list.py at commit
// 8c88b8c0d75dbd136b6895220c4f56ccbe2f2d24 (Llama 3.1 405B, BF16: dim 16384, n_layers 126,
// n_heads 128, n_kv_heads 8, ffn_dim_multiplier 1.2, multiple_of 4096, so an MLP width of
// 53248, as in Hugging Face meta-llama/Llama-3.1-405B's config.json). An early version of that
// config.json said 16 KV heads: the layout of the 16-way model-parallel checkpoint (sku_list's
// "mp16" entry), not of the model.
ModelPreset llama31_405b() {
  return llama3("llama3.1-405b", "Meta Llama 3.1 405B (GQA, SwiGLU MLP), one 8192-token sequence",
                16384, 53248, 128, 126);
}

// The MoE and attention fields --list_models shows beyond a dense preset's line.
std::string moe_and_attention_text(const ModelConfig& c) {
  std::string text;
  if (c.attention_head_dim != 0)
    text += " head_dim=" + std::to_string(c.attention_head_dim);
  if (c.is_moe()) {
    text += " experts=" + std::to_string(c.num_experts) +
            " top_k=" + std::to_string(c.num_experts_per_token) +
            " moe_intermediate=" + std::to_string(c.moe_intermediate_size);
    if (c.num_shared_experts > 0)
      text += " shared_experts=" + std::to_string(c.num_shared_experts);
    if (c.first_k_dense > 0)
      text += " first_k_dense=" + std::to_string(c.first_k_dense);
    if (c.expert_parallel > 1)
      text += " expert_parallel=" + std::to_string(c.expert_parallel);
  }
  if (c.is_mla())
    text += " mla";
  return text;
}

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = {
      te_tutorial(),
      llama3("llama3-8b", "Meta Llama 3 8B (GQA, SwiGLU MLP), one 8192-token sequence", 4096, 14336,
             32, 32),
      llama3("llama3-70b", "Meta Llama 3 70B (GQA, SwiGLU MLP), one 8192-token sequence", 8192,
             28672, 64, 80),
      llama31_405b(),
      mixtral_8x7b(),
      qwen3_30b_a3b(),
      qwen3_235b_a22b(),
      deepseek_v3(),
      gpt_oss_120b(),
  };
  return presets;
}

const ModelPreset* find_preset(std::string_view name) {
  const auto& presets = model_presets();
  const auto it = std::find_if(presets.begin(), presets.end(),
                               [name](const ModelPreset& p) { return p.name == name; });
  return it == presets.end() ? nullptr : &*it;
}

std::string preset_names() {
  std::string names;
  for (const ModelPreset& preset : model_presets()) {
    if (!names.empty())
      names += ", ";
    names += preset.name;
  }
  return names;
}

std::string list_models_text() {
  size_t name_width = 0;
  for (const ModelPreset& preset : model_presets()) {
    name_width = std::max(name_width, preset.name.size());
  }
  std::ostringstream out;
  for (const ModelPreset& preset : model_presets()) {
    const ModelConfig& c = preset.config;
    out << preset.name << std::string(name_width - preset.name.size() + 2, ' ')
        << "hidden=" << c.hidden_size << " intermediate=" << c.intermediate_size
        << " heads=" << c.num_attention_heads << " kv_heads=" << c.num_key_value_heads
        << " layers=" << c.num_hidden_layers << " gated_mlp=" << (c.gated_mlp ? "true" : "false")
        << " micro_batch=" << c.micro_batch_size << " seq=" << c.sequence_length
        << moe_and_attention_text(c) << "  " << preset.description
        << (&preset == &model_presets().front() ? " [default]" : "") << "\n";
  }
  return out.str();
}

}  // namespace gemmscope
