#pragma once
// What the three FP8 recipes share: FP8 tensor cores (compute capability 8.9+), cuBLASLt's
// rule that an FP8 operand's contraction dimension is a multiple of 16, and the tolerance of
// an FP8 GEMM against the reference GEMM of its dequantized operands.

#include "bench/recipes/quantized_recipe.h"

namespace gemmscope {

class Fp8Recipe : public QuantizedRecipe {
 public:
  std::string unsupported_reason(const DeviceInfo& device) const override;
  void check_gemm_operand(const QuantizedTensor& operand) const override;
  // FP8 products are exact in FP32, so what remains is the BF16 output's rounding (measured
  // 1.7e-3 on an H200, as for BF16) and, where FAST_ACCUM is on, Hopper's reduced-precision
  // accumulation (measured 3.5e-3 in Fprop at K = 4096 and 16384).
  double tolerance(Pass pass) const override { return fast_accumulation(pass) ? 1e-2 : 4e-3; }
  // That multiple of 16, as TransformerEngine pads FP8 expert rows
  // (get_align_size_for_quantization).
  int64_t group_row_alignment() const override { return 16; }
};

// The tensorwise recipes' formats (HYBRID): E4M3 for X and W, E5M2 for dY.
ElementFormat fp8_tensorwise_format(TensorRole role);

}  // namespace gemmscope
