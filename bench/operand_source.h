#pragma once
// A BF16 training tensor as a quantizer sees it: its role in the layer (which decides the
// recipe's format and block shape), where it is, and which quantized copies are wanted.

#include <cuda_bf16.h>

#include <cstdint>

#include "quant/operand_copies.h"

namespace gemmscope {

enum class TensorRole {
  kActivation,  // X
  kWeight,      // W
  kGradient,    // dY
};

// "x", "w", "dy": the operand token of quantization case names.
const char* role_token(TensorRole role);

struct OperandSource {
  TensorRole role = TensorRole::kActivation;
  const __nv_bfloat16* data = nullptr;  // row-major [rows, cols]
  int64_t rows = 0;
  int64_t cols = 0;
  OperandCopies copies = OperandCopies::kRowwise;
};

}  // namespace gemmscope
