#pragma once
// The linear layers of one transformer layer and the 12 GEMMs (3 passes x 4 layers) they run
// per training step, on one tensor-parallel rank.

#include <string>
#include <vector>

#include "shapes/gemm_shape.h"
#include "shapes/model_config.h"

namespace gemmscope {

struct LinearOp {
  std::string op;  // "qkv", "attn_out", "mlp_up", "mlp_down": the case-name token
  int64_t in_features = 0;
  int64_t out_features = 0;
};

// qkv, attn_out, mlp_up, mlp_down, in that order, as one tensor-parallel rank holds them:
// qkv and mlp_up are column-parallel (output features split), attn_out and mlp_down are
// row-parallel (input features split), as in Megatron-LM and TransformerEngine.
// Throws std::invalid_argument (see validate) for an invalid config.
std::vector<LinearOp> linear_ops(const ModelConfig& config);

struct LayerGemm {
  Pass pass = Pass::kFprop;
  std::string op;
  LinearDims dims;
  GemmShape shape;  // gemm_shape(pass, dims)
};

// 12 GEMMs: the Fprop of the four ops, then their Dgrad, then their Wgrad.
std::vector<LayerGemm> layer_gemms(const ModelConfig& config);

}  // namespace gemmscope
