#pragma once
// A BF16 training tensor as a quantizer sees it: its role in the layer (which decides the
// recipe's format and block shape), where it is, and which quantized copies are wanted.
//
// A grouped (mixture-of-experts) operand is one tensor of G groups of rows, group after group:
// the routed rows of all experts, sorted by expert (X, dY), or the experts' stacked weights
// (W, each group `out` rows). Every group is quantized as a tensor of its own, with its own
// scales and its own columnwise copy (its transpose), as each expert's GEMM reads it.

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

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
  // Grouped operands: each group's rows, summing to `rows` (a group may have none). Empty for
  // a tensor that is one GEMM's operand.
  std::vector<int64_t> group_rows;
  // Grouped FP8Block operands: write the rowwise copy's 1x128 scales stacked as well
  // (QuantizedTensor::stacked_scale), for a grouped GEMM that reads them
  // (stacked_row_scales_wanted, bench/gemm_choice.h).
  bool stacked_row_scales = false;

  bool grouped() const { return !group_rows.empty(); }
  int64_t group_count() const { return grouped() ? static_cast<int64_t>(group_rows.size()) : 1; }
};

}  // namespace gemmscope
