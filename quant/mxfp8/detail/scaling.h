#pragma once
// MXFP8's block scaling, as TransformerEngine's MXFP8 recipe does it: a block of 32 consecutive
// elements along the contraction dimension with amax a gets the E8M0 scale
//
//     s = 2^ceil(log2(a * (1/448)))        (the power of two at or above a / 448)
//
// and its elements are stored as E4M3(x / s), so the block's largest element lands in
// (224, 448] and never overflows. a * (1/448) is the FP32 product both the GPU kernels and the
// host reference compute (TransformerEngine multiplies by the rounded reciprocal too).

#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr int kMxfp8BlockSize = 32;

// Non-finite policy: a block holding ±inf or NaN is stored as the NaN scale with every element
// the E4M3 NaN, so it reads back as NaN as a whole and a verification notices it.
// (TransformerEngine instead saturates an inf block's scale; only this edge differs.)
constexpr uint8_t kMxfp8NanScale = 0xFF;    // E8M0 NaN
constexpr uint8_t kMxfp8NanElement = 0x7F;  // E4M3 NaN

GEMMSCOPE_HOST_DEVICE inline float mxfp8_scale_target(float block_amax) {
  return block_amax * (1.0f / 448.0f);
}

}  // namespace gemmscope
