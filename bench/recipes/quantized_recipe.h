#pragma once
// What every quantizing recipe (FP8, MXFP8, NVFP4) shares: a pass's GEMM runs "TN" on
// quantized copies of its two BF16 inputs, as Hopper's FP8 tensor cores require and
// TransformerEngine launches them:
//   Fprop  X rowwise  · W rowwise       (E4M3 x E4M3 in the tensorwise recipes)
//   Dgrad  dY rowwise · W columnwise    (the columnwise copy is Wᵀ, quantized along out)
//   Wgrad  dY columnwise · X columnwise (both quantized along tokens)
// Which quantizations a case's timed work holds besides the GEMM depends on its mode
// (bench/pass_quantization.h): in a step the tensors the step first reads at this pass, into
// both copies (W once per --microbatches); in autocast both operands, into the copy the GEMM
// reads; in prequant none, the copies made once. Each quantization includes the recipe's
// per-step bookkeeping (delayed scaling's history update).
// A pass the recipe keeps in BF16 (quantized_passes(), FP8RowwiseBF16Wgrad's Wgrad) runs BF16's
// GEMM on the BF16 tensors instead, in every mode, quantizing nothing (bench/recipes/
// bf16_gemm_case.h); the other passes' accounting then makes no copy for it.
// A recipe supplies its OperandQuantizer and its GEMM settings. Where the GPU lacks the
// recipe's tensor cores, the GEMM runs emulated (kernels/cublaslt/emulated_gemm.h) if the recipe
// allows.

#include "bench/recipes/recipe.h"

namespace gemmscope {

class QuantizedRecipe : public Recipe {
 public:
  bool quantizes() const final { return true; }
  std::unique_ptr<GemmCase> prepare(const CaseSpec& spec, const RecipeContext& context) const final;
  // make_tensor_quantizer for a tensor, make_grouped_quantizer for a grouped operand.
  std::unique_ptr<OperandQuantizer> make_quantizer(const OperandSource& source,
                                                   cudaStream_t stream) const final;

  // The quantization of one tensor (source.grouped() is false).
  virtual std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                                  cudaStream_t stream) const = 0;
  // The quantization of every group of a grouped operand. By default each group by its own
  // tensor quantizer, one after the other.
  virtual std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                                   cudaStream_t stream) const;

  // cuBLASLt's FAST_ACCUM for this pass (TransformerEngine: Fprop only, for FP8).
  virtual bool fast_accumulation(Pass pass) const = 0;
  // See GemmCase::tolerance().
  virtual double tolerance(Pass pass) const = 0;
  // Throws Unsupported when a copy cannot be a GEMM operand (say, an FP8 contraction
  // dimension that is not a multiple of 16).
  virtual void check_gemm_operand(const QuantizedTensor& operand) const = 0;
  // Whether cuBLASLt runs this recipe's GEMM on `device`'s tensor cores; if not (and the
  // recipe is registered as runnable there), the GEMM is emulated.
  virtual bool has_native_gemm(const DeviceInfo& /*device*/) const { return true; }
};

}  // namespace gemmscope
