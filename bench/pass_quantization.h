#pragma once
// What a quantized recipe's pass reads, and what its timed work quantizes in each mode: the
// accounting a case's time follows (docs/recipes.md, "What a case's time holds").
//
// A pass's GEMM runs TN on quantized copies (bench/recipes/quantized_recipe.h):
//   Fprop  X rowwise     · W rowwise
//   Dgrad  dY rowwise    · W columnwise
//   Wgrad  dY columnwise · X columnwise
// A recipe may keep a pass in BF16 (QuantizedPasses): that pass reads the BF16 tensors, and no
// copy is made for it.
// - step, what a training step pays. A trainer that saves its FP8 copies (StepCasts::
//   kSavedCopies: TransformerEngine's Linear, torchao's tensorwise Float8Linear): each
//   tensor is quantized once a step, where the step first reads it quantized, into every copy the
//   step's quantized passes read: with every pass quantized, Fprop X and W into both copies,
//   Dgrad dY into both; Wgrad reads the copies saved by the other two. W's copies serve every
//   microbatch of an optimizer step (--microbatches=N; TE's is_first_microbatch), so it is
//   quantized once per N. Three quantizations an op, summed over its passes. A trainer that
//   casts at each GEMM (StepCasts::kAtEachGemm: torchao's rowwise Float8Linear, which keeps the
//   BF16 tensors and casts each GEMM's operands along the axis it needs, every microbatch):
//   autocast's placement.
// - autocast, TransformerEngine's benchmark tool (benchmarks/gemm/benchmark_gemm.py): each
//   quantized GEMM quantizes both of its operands, into the copy it reads, every call. Six an op
//   with every pass quantized.
// - prequant: none; the copies are made once, outside timing. The GEMMs alone.

#include <optional>

#include "bench/operand_source.h"
#include "quant/operand_copies.h"
#include "shapes/case_mode.h"
#include "shapes/gemm_shape.h"

namespace gemmscope {

// The passes whose GEMMs read quantized copies; the others read the BF16 tensors, as BF16's
// GEMMs do (torchao's rowwise_with_gw_hp keeps Wgrad in BF16).
struct QuantizedPasses {
  bool fprop = true;
  bool dgrad = true;
  bool wgrad = true;

  static QuantizedPasses none() { return {false, false, false}; }
  bool has(Pass pass) const;
};

// Where a recipe's trainer quantizes in a step.
enum class StepCasts {
  kSavedCopies,  // once a tensor, into every copy its passes read; W once per optimizer step
  kAtEachGemm,   // each GEMM its two operands, into the copy it reads, every microbatch
};

// One operand of a pass's GEMM.
struct OperandUse {
  TensorRole role = TensorRole::kActivation;
  // The copy the GEMM reads: rowwise or columnwise.
  OperandCopies reads = OperandCopies::kRowwise;
  // The copies the operand's quantizer writes: `reads`, or both where the timed work makes the
  // copy a later pass reads too.
  OperandCopies writes = OperandCopies::kRowwise;
  // Quantized inside the timed work (else once, outside timing).
  bool timed = false;
  // Timed, but once per --microbatches=N calls: the weight's copies, kept across the
  // microbatches of an optimizer step.
  bool once_per_microbatches = false;
};

struct PassOperands {
  OperandUse left;   // X in Fprop, dY in Dgrad and Wgrad
  OperandUse right;  // W in Fprop and Dgrad, X in Wgrad
};

// The copies of `role`'s tensor that the `quantized` passes read (what a step quantizes it
// into); nullopt when none of them reads it.
std::optional<OperandCopies> copies_read(TensorRole role, const QuantizedPasses& quantized);

// `mode` is kStep, kAutocast or kPrequant; throws std::invalid_argument for kNative and for a
// pass that `quantized` leaves in BF16. `step_casts` says where kStep quantizes.
PassOperands pass_operands(Pass pass, Mode mode, const QuantizedPasses& quantized = {},
                           StepCasts step_casts = StepCasts::kSavedCopies);

}  // namespace gemmscope
