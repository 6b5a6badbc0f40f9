#pragma once
// Device building blocks of the FP8 quantization kernels: the NaN-ignoring amax of BF16 data
// computed on packed 16-bit lanes, and BF16 pairs scaled and converted to FP8 pairs with the
// hardware's round-to-nearest, saturating conversion (cvt.rn.satfinite).

#include <cuda_fp8.h>

#include <cstdint>

namespace gemmscope::detail {

// |x| of both BF16 halves of `pair` as unsigned 16-bit lanes, NaN lanes set to 0. For
// non-negative BF16 values the bit patterns order like the values, so an unsigned lane max over
// these words is the amax that ignores NaN (as TE's __hmax / fmaxf do) and keeps inf (0x7f80).
__device__ __forceinline__ uint32_t abs_bits_without_nan(uint32_t pair) {
  const uint32_t magnitude = pair & 0x7fff7fffu;
  return magnitude & __vcmpleu2(magnitude, 0x7f807f80u);
}

__device__ __forceinline__ uint32_t max_abs_lanes(uint32_t lanes, uint32_t pair) {
  return __vmaxu2(lanes, abs_bits_without_nan(pair));
}

__device__ __forceinline__ uint32_t max_abs_lanes(uint32_t lanes, uint4 chunk) {
  lanes = max_abs_lanes(lanes, chunk.x);
  lanes = max_abs_lanes(lanes, chunk.y);
  lanes = max_abs_lanes(lanes, chunk.z);
  return max_abs_lanes(lanes, chunk.w);
}

// The larger of the two lanes as FP32 bits (BF16 -> FP32 is a 16-bit shift). Non-negative
// FP32 bit patterns also order like their values, so these can be max-reduced as integers.
__device__ __forceinline__ uint32_t lanes_to_amax_bits(uint32_t lanes) {
  return max(lanes & 0xffffu, lanes >> 16) << 16;
}

// fp8(x * scale) for both BF16 halves of `pair`; the low half lands in the low byte. The
// product is one FP32 multiply rounded to nearest, exactly what the host reference computes.
template <__nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint32_t quantize_bf16_pair(uint32_t pair, float scale) {
  const float low = __uint_as_float(pair << 16) * scale;
  const float high = __uint_as_float(pair & 0xffff0000u) * scale;
  return __nv_cvt_float2_to_fp8x2(make_float2(low, high), __NV_SATFINITE, kFormat);
}

// Four FP8 bytes from two BF16 pairs, in element order.
template <__nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint32_t quantize_bf16_quad(uint32_t first_pair, uint32_t second_pair,
                                                       float scale) {
  return quantize_bf16_pair<kFormat>(first_pair, scale) |
         (quantize_bf16_pair<kFormat>(second_pair, scale) << 16);
}

}  // namespace gemmscope::detail
