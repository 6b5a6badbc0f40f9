#pragma once
// FP8 tensorwise current scaling (FP8Current), after TransformerEngine: amax over the tensor,
// scale = format max / amax, then one cast that writes the rowwise copy, the transposed
// columnwise copy, or both. E4M3 for activations and weights, E5M2 for gradients (HYBRID).
//
// Everything is enqueued on `stream`: no host synchronisation, no host reads of device values,
// so these run inside timed regions. Scales stay on the device. Pointers are device pointers;
// inputs are BF16, row-major [rows, cols]. Any positive rows and cols are taken (see
// quant/fp8/operand.h for what the GEMM needs); 16-aligned sizes take the vectorised path.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

// Where a cast writes. Either copy may be null, not both.
struct Fp8CastTargets {
  uint8_t* rowwise = nullptr;     // [rows, cols]
  uint8_t* columnwise = nullptr;  // [cols, rows]: the transpose, for Hopper's TN-only GEMMs
};

// One tensor's current-scaling state, three FP32 device slots. in_buffer() carves them out of
// one buffer of kBufferFloats, each 16-byte aligned (cuBLASLt's scale pointers want that).
// Several tensors' states (a grouped operand's groups) lie one after the other in one buffer:
// state i is in_buffer(buffer + i * kBufferFloats).
struct Fp8CurrentScalingState {
  static constexpr int64_t kBufferFloats = 12;
  static Fp8CurrentScalingState in_buffer(float* buffer);

  float* amax = nullptr;
  float* scale = nullptr;      // quantization factor the cast multiplies by
  float* scale_inv = nullptr;  // 1 / scale: the SCALAR_32F dequantization factor of both copies
};

// amax = max |x| over `count` elements, ignoring NaN (inf counts). Resets *amax itself
// (cudaMemsetAsync on `stream`) before accumulating, so it needs no preparation.
void compute_amax(const __nv_bfloat16* input, int64_t count, float* amax, cudaStream_t stream);

// *scale and *scale_inv from *amax by scale_from_amax (quant/fp8/detail/scale_policy.h): amax 0,
// inf or NaN give 1; an overflowing quotient gives FLT_MAX. One thread, like TE's.
void compute_current_scale(const float* amax, ElementFormat format, float* scale, float* scale_inv,
                           cudaStream_t stream);

// compute_current_scale of `count` states one after the other in `states` (state i is
// in_buffer(states + i * kBufferFloats)): one launch, a thread a state.
void compute_current_scales(float* states, int64_t count, ElementFormat format,
                            cudaStream_t stream);

// fp8(x * *scale), saturating, into the requested copies, reading the input once. When
// `amax_record` is not null the cast also atomically maxes this tensor's amax into it
// (delayed scaling; the caller owns resetting it).
void cast_fp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, ElementFormat format,
              const float* scale, const Fp8CastTargets& targets, float* amax_record,
              cudaStream_t stream);

// The whole FP8Current quantization of one tensor: compute_amax, compute_current_scale,
// cast_fp8 — three kernels and a memset.
void quantize_fp8_current(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          ElementFormat format, const Fp8CurrentScalingState& state,
                          const Fp8CastTargets& targets, cudaStream_t stream);

}  // namespace gemmscope
