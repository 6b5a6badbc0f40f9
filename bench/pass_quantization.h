#pragma once
// What a quantized recipe's pass reads, and what its timed work quantizes in each mode: the
// accounting a case's time follows (docs/recipes.md, "What a case's time holds").
//
// A pass's GEMM runs TN on quantized copies (bench/recipes/quantized_recipe.h):
//   Fprop  X rowwise     · W rowwise
//   Dgrad  dY rowwise    · W columnwise
//   Wgrad  dY columnwise · X columnwise
// - step, what a training step pays (TransformerEngine's Linear, torchao's Float8Linear): each
//   tensor is quantized once a step, where the step first reads it, into every copy the step
//   reads later: Fprop X and W into both copies, Dgrad dY into both; Wgrad reads the copies
//   saved by the other two. W's copies serve every microbatch of an optimizer step
//   (--microbatches=N; TE's is_first_microbatch), so it is quantized once per N. Three
//   quantizations an op, summed over its passes.
// - autocast, TransformerEngine's benchmark tool (benchmarks/gemm/benchmark_gemm.py): each GEMM
//   quantizes both of its operands, into the copy it reads, every call. Six an op.
// - prequant: none; the copies are made once, outside timing. The GEMMs alone.

#include "bench/operand_source.h"
#include "quant/operand_copies.h"
#include "shapes/case_mode.h"
#include "shapes/gemm_shape.h"

namespace gemmscope {

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

// `mode` is kStep, kAutocast or kPrequant; throws std::invalid_argument for kNative.
PassOperands pass_operands(Pass pass, Mode mode);

}  // namespace gemmscope
