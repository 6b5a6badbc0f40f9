#pragma once
// NVFP4's two-level scaling, after TransformerEngine's NVFP4 recipe. A value x of a tensor with
// amax A, in a 16-element block (1x16, or 16x16 for weights) with amax a, is stored as
//
//     encode scale   S_enc = 448 * 6 / A                        (FP32, per tensor)
//     block scale    s     = E4M3(a * (S_enc * (1/6)))          (stored, one per block)
//     element        q     = E2M1(x * m),  m = 1 / (float(s) * (1 / S_enc))
//
// and read back as x ≈ q * s * (1 / S_enc). The per-tensor factor 1 / S_enc is the copy's
// tensor_scale; a GEMM multiplies the two operands' factors into alpha. The block scale uses
// E4M3's range to the full (the largest block in the tensor gets s = 448), and E2M1's: the
// block's largest element maps to 6 up to the rounding of s.
//
// These are the exact FP32 operations, in TransformerEngine's order, that both the GPU kernels
// and the host reference evaluate (only products, quotients and comparisons: no FMA can be
// formed, so both sides round identically). The E4M3 rounding of s is not here: the GPU uses
// the hardware conversion, the host reference quant/e4m3_codec.h.
//
// Degenerate tensors: an amax of zero, inf or NaN gives S_enc = 1; an amax so small that
// 2688 / A overflows gives S_enc = FLT_MAX. A block whose E4M3 scale rounds to zero gets the
// multiplier FLT_MAX (its elements saturate, and read back as zero through s = 0).

#include <cfloat>
#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr float kNvfp4EncodeNumerator = 448.0f * 6.0f;
constexpr int kNvfp4BlockSize = 16;

// Non-finite policy: a block holding ±inf or NaN is stored as the NaN scale (E4M3 0x7F) with
// every element code 0, so it reads back as NaN as a whole and a verification notices it.
constexpr uint8_t kNvfp4NanScale = 0x7F;

GEMMSCOPE_HOST_DEVICE inline float nvfp4_encode_scale(float tensor_amax) {
  if (!(tensor_amax > 0.0f) || !(tensor_amax <= FLT_MAX))
    return 1.0f;
  const float scale = kNvfp4EncodeNumerator / tensor_amax;
  return scale <= FLT_MAX ? scale : FLT_MAX;
}

// The copy's tensor_scale: what the GEMM's alpha carries.
GEMMSCOPE_HOST_DEVICE inline float nvfp4_tensor_dequant_scale(float encode_scale) {
  return 1.0f / encode_scale;
}

// The block scale before its rounding to E4M3, in two steps so that a kernel computes the
// per-tensor factor once.
GEMMSCOPE_HOST_DEVICE inline float nvfp4_block_scale_factor(float encode_scale) {
  return encode_scale * (1.0f / 6.0f);
}
GEMMSCOPE_HOST_DEVICE inline float nvfp4_block_scale_unrounded_from_factor(float block_amax,
                                                                           float factor) {
  return block_amax * factor;
}
GEMMSCOPE_HOST_DEVICE inline float nvfp4_block_scale_unrounded(float block_amax,
                                                               float encode_scale) {
  return nvfp4_block_scale_unrounded_from_factor(block_amax,
                                                 nvfp4_block_scale_factor(encode_scale));
}

// The factor the block's elements are multiplied by before E2M1 rounding, from the block
// scale as stored (already rounded to E4M3 and read back).
GEMMSCOPE_HOST_DEVICE inline float nvfp4_element_multiplier(float stored_block_scale,
                                                            float encode_scale) {
  const float multiplier = 1.0f / (stored_block_scale * nvfp4_tensor_dequant_scale(encode_scale));
  return multiplier <= FLT_MAX ? multiplier : FLT_MAX;
}

}  // namespace gemmscope
