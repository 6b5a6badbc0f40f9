#pragma once
// FP8 block scaling (FP8Block), after TransformerEngine's Float8BlockScaling recipe on Hopper:
// E4M3 for every operand, power-of-2 FP32 scales (TE's default; scale_from_amax with
// power_of_2 in quant/fp8/detail/scale_policy.h), amax epsilon 0.
//
//   quantize_fp8_1x128    activations and gradients: one scale per 1x128 block along cols for
//                         the rowwise copy and, in the same pass, one per 1x128 block along the
//                         columnwise copy's own cols (the original rows).
//   quantize_fp8_128x128  weights: one scale per 128x128 block, shared by both copies; the
//                         columnwise copy's scale grid is the rowwise grid transposed.
//
// Scale tensors are written in cuBLASLt's layouts (quant/fp8/scale_layout.h): VEC128_32F for 1x128,
// BLK128x128_32F for 128x128, padding slots set to kScalePadding (1.0f). Edge blocks smaller
// than 128 take their scale from the elements that exist. Fp8OperandLayout (quant/fp8/operand.h)
// gives the buffer sizes and the QuantizedTensor views.
//
// All device work on `stream`, no host synchronisation. Input BF16 [rows, cols], any positive
// size; either copy may be skipped (null data and scale pointers), not both.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope {

struct Fp8BlockTargets {
  uint8_t* rowwise = nullptr;             // [rows, cols]
  float* rowwise_scale_inv = nullptr;     // required with rowwise
  uint8_t* columnwise = nullptr;          // [cols, rows]
  float* columnwise_scale_inv = nullptr;  // required with columnwise
};

void quantize_fp8_1x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        const Fp8BlockTargets& targets, cudaStream_t stream);

void quantize_fp8_128x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          const Fp8BlockTargets& targets, cudaStream_t stream);

}  // namespace gemmscope
