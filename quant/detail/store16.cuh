#pragma once
// Stores 16 consecutive FP32 results as FP32 or BF16 with 16-byte vector stores: how the
// MXFP8 and NVFP4 dequantize kernels write their output. `out` is 16-byte aligned.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope::detail {

__device__ inline void store16(float* out, const float (&values)[16]) {
  float4* out4 = reinterpret_cast<float4*>(out);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    out4[k] = make_float4(values[4 * k], values[4 * k + 1], values[4 * k + 2], values[4 * k + 3]);
  }
}

// Rounds to nearest; exact for the block-scaled formats (see the dequantize headers).
__device__ inline void store16(__nv_bfloat16* out, const float (&values)[16]) {
  uint32_t words[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const __nv_bfloat162 pair = __floats2bfloat162_rn(values[2 * k], values[2 * k + 1]);
    words[k] = *reinterpret_cast<const uint32_t*>(&pair);
  }
  uint4* out4 = reinterpret_cast<uint4*>(out);
  out4[0] = make_uint4(words[0], words[1], words[2], words[3]);
  out4[1] = make_uint4(words[4], words[5], words[6], words[7]);
}

}  // namespace gemmscope::detail
