#pragma once
// FP8 delayed scaling (FP8Delayed), after TransformerEngine's DelayedScaling recipe with
// amax_history_len 1024, amax_compute_algo "max", margin 0.
//
// One step of one tensor:
//   1. cast_fp8_delayed: quantize with the scale from the last update, and record this tensor's
//      amax into amax_history[0] in the same pass (an atomic max: history[0] is 0 after every
//      update, and several casts of one tensor within a step keep the largest amax).
//   2. update_delayed_scaling, once per step: TE's amax_and_scale_update, in TE's order —
//      reduce and roll in one pass over the history as the cast left it:
//        amax = max(history[0 .. L-1])            (fmaxf: NaN entries are ignored)
//        history <- roll left by one, then history[0] = 0
//                   (this step's amax moves to the end, the oldest entry, which the roll moved
//                    to slot 0, is dropped; slot 0 is ready for the next step's record)
//        scale = 448 or 57344 / amax, or the old scale when amax is 0 or inf; FLT_MAX when the
//                quotient overflows; scale_inv = 1 / scale
//      (TE's multi-tensor variant, used by its PyTorch module, also skips the roll when this
//      step's amax is 0; the single-tensor kernel followed here always rolls.)
//
// gemmscope's quantizers run step 2 before step 1 of each quantization (the update from the
// history of earlier steps, then this step's cast with the scale it leaves): the same sequence of
// scales, and the copies' scale_inv is the one their cast used until the next quantization, as
// TransformerEngine's FP8 tensors keep the scale_inv of their cast.
//
// All device work on `stream`, no host synchronisation.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/fp8/tensorwise.h"
#include "quant/quantized_tensor.h"

namespace gemmscope {

struct Fp8DelayedScalingState {
  static constexpr int64_t kDefaultHistoryLength = 1024;

  // FP32 slots of a state with `history_length` entries: scale, scale_inv, history, each slot
  // starting 16-byte aligned (cuBLASLt's scale pointers want that), rounded up to a multiple of
  // four so that states one after the other in one buffer (a grouped operand's groups, state i
  // at buffer + i * buffer_floats()) stay aligned.
  static int64_t buffer_floats(int64_t history_length = kDefaultHistoryLength);
  // Carves the state out of one device buffer of buffer_floats(history_length) floats.
  static Fp8DelayedScalingState in_buffer(float* buffer,
                                          int64_t history_length = kDefaultHistoryLength);

  float* scale = nullptr;      // quantization factor the cast multiplies by
  float* scale_inv = nullptr;  // 1 / scale: the SCALAR_32F dequantization factor
  float* amax_history = nullptr;
  int64_t history_length = 0;
};

// The state TE starts from: scale = scale_inv = 1, history all zeros.
void reset_delayed_scaling(const Fp8DelayedScalingState& state, cudaStream_t stream);

// Step 1 above: cast_fp8 with *state.scale, recording amax into state.amax_history[0].
void cast_fp8_delayed(const __nv_bfloat16* input, int64_t rows, int64_t cols, ElementFormat format,
                      const Fp8DelayedScalingState& state, const Fp8CastTargets& targets,
                      cudaStream_t stream);

// Step 2 above: roll the history and compute the new scale and scale_inv (one thread block).
void update_delayed_scaling(const Fp8DelayedScalingState& state, ElementFormat format,
                            cudaStream_t stream);

// reset_delayed_scaling and update_delayed_scaling of `count` states one after the other in
// `states` (state i is in_buffer(states + i * buffer_floats(history_length), history_length)),
// each in one launch of a thread block per state.
void reset_delayed_scaling_states(float* states, int64_t count, int64_t history_length,
                                  cudaStream_t stream);
void update_delayed_scaling_states(float* states, int64_t count, int64_t history_length,
                                   ElementFormat format, cudaStream_t stream);

}  // namespace gemmscope
