#pragma once
// Host references of the FP8 tensorwise and delayed-scaling kernels and of FP8 dequantization,
// written plainly from the definitions (quant/fp8/format.h, quant/fp8/detail/scale_policy.h,
// quant/fp8/scale_layout.h). The GPU tests require the kernels to match them bit for bit. Host
// pointers throughout; BF16 inputs row-major [rows, cols]. No CUDA device needed.

#include <cuda_bf16.h>

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

// max |x| over `count` elements, NaN ignored, inf counted; 0 for all-NaN or all-zero input.
float reference_amax(const __nv_bfloat16* input, int64_t count);

struct Fp8Scales {
  float scale;      // quantization factor
  float scale_inv;  // dequantization factor, 1 / scale
};

// compute_current_scale's result for `amax`.
Fp8Scales reference_current_scale(float amax, ElementFormat format);

// cast_fp8's result: fp8(x * scale) into rowwise [rows, cols] and/or columnwise [cols, rows]
// (either may be null).
void reference_cast_fp8(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        ElementFormat format, float scale, uint8_t* rowwise, uint8_t* columnwise);

// update_delayed_scaling's result: reduce ("max", NaN ignored) and roll `amax_history` in
// place, then replace *scale and *scale_inv.
void reference_update_delayed_scaling(float* amax_history, int64_t history_length,
                                      ElementFormat format, float* scale, float* scale_inv);

// dequantize()'s result for an FP8 operand [rows, cols] whose scales are in `layout`
// (kTensor, kVec128 or kBlock128x128): out[r * cols + c] = fp8_decode(data) * scale.
void reference_dequantize_fp8(const uint8_t* data, ElementFormat format, int64_t rows, int64_t cols,
                              const float* scales, ScaleLayout layout, float* out);

}  // namespace gemmscope
