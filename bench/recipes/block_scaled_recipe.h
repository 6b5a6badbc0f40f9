#pragma once
// What MXFP8 and NVFP4 share: cuBLASLt runs their GEMMs on Blackwell's tensor cores
// (compute capability 10.0 and newer) only. Elsewhere their GEMM cases are skipped with that
// reason, or, with --emulate, run on the exact emulated GEMM (kernels/cublaslt/emulated_gemm.h).
// Both accumulate in FP32 without FAST_ACCUM.
//
// The native path is written to the cuBLASLt documentation and NVIDIA's LtMxfp8Matmul and
// LtNvfp4Matmul samples, but gemmscope has not run it on Blackwell hardware yet.

#include "bench/recipes/quantized_recipe.h"

namespace gemmscope {

class BlockScaledRecipe : public QuantizedRecipe {
 public:
  explicit BlockScaledRecipe(bool emulate) : emulate_(emulate) {}

  std::vector<Mode> modes() const override {
    return {Mode::kStep, Mode::kAutocast, Mode::kPrequant};
  }
  std::string unsupported_reason(const DeviceInfo& device) const override;
  bool has_native_gemm(const DeviceInfo& device) const override { return device.cc_major >= 10; }
  bool fast_accumulation(Pass /*pass*/) const override { return false; }
  // FP32 accumulation of exact products (natively, or of exactly dequantized BF16 operands):
  // only the BF16 output's rounding remains.
  double tolerance(Pass /*pass*/) const override { return 4e-3; }
  // The quantizers refuse shapes the format cannot take (as Unsupported), so every copy they
  // produce is a valid operand.
  void check_gemm_operand(const QuantizedTensor& /*operand*/) const override {}

 private:
  bool emulate_;
};

}  // namespace gemmscope
