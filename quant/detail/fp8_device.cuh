#pragma once
// Device building blocks of the FP8 quantization kernels: the NaN-ignoring amax of BF16 data
// computed on packed BF16 pairs, the power-of-2 E4M3 block scale without a division, and BF16
// values scaled and converted to FP8 pairs with the hardware's round-to-nearest, saturating
// conversion (cvt.rn.satfinite).

#include <cuda_fp8.h>

#include <cstdint>

namespace gemmscope::detail {

// Running max of |x| over BF16 pairs, lane by lane, in one instruction a pair:
// max.xorsign.abs.bf16x2 gives the larger magnitude and, without .NaN, a NaN lane loses to a
// number (TE's amax ignores NaN the same way; its cast kernels use this instruction). The lanes'
// sign bits are meaningless and a lane is NaN only when all it saw was NaN: finish_magnitudes()
// turns the result into plain magnitudes before anything else reads it. Max only selects, so
// infinities and subnormals pass through exactly.
__device__ __forceinline__ uint32_t max_magnitudes(uint32_t lanes, uint32_t pair) {
  uint32_t result;
  asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(result) : "r"(lanes), "r"(pair));
  return result;
}

// The same over the four pairs of a 16-byte chunk (a NaN lane only if all eight were NaN).
__device__ __forceinline__ uint32_t max_magnitudes(uint4 chunk) {
  return max_magnitudes(max_magnitudes(chunk.x, chunk.y), max_magnitudes(chunk.z, chunk.w));
}

// The |x| bit patterns of a max_magnitudes() result, an all-NaN lane as 0. Non-negative BF16 bit
// patterns order like their values, so these lanes can be max-reduced as unsigned integers.
__device__ __forceinline__ uint32_t finish_magnitudes(uint32_t lanes) {
  return max_magnitudes(lanes, 0u) & 0x7fff7fffu;
}

// The larger of the two finished lanes as FP32 bits (BF16 -> FP32 is a 16-bit shift).
// Non-negative FP32 bit patterns also order like their values, so these can be max-reduced as
// integers.
__device__ __forceinline__ uint32_t lanes_to_amax_bits(uint32_t lanes) {
  return max(lanes & 0xffffu, lanes >> 16) << 16;
}

// scale_from_amax(amax, 448, /*power_of_2=*/true) for a non-negative, non-NaN amax given as FP32
// bits, with integer operations instead of a division. 448 = 1.75 * 2^8, so for a normal
// amax = m * 2^e (1 <= m < 2) the quotient 448 / amax = (1.75 / m) * 2^(8 - e) has the binary
// exponent 8 - e when m <= 1.75 and 7 - e otherwise (1.75 / m then lies in (0.875, 1) and
// still rounds below 1: 1.75 / (1.75 + 2^-23) < 1 - 2^-25). Clearing the mantissa leaves that
// power of two, biased exponent 262 - E - (m > 1.75). Biased exponents past 254 (amax up to
// 1.75 * 2^-120, subnormals included) are the quotients that overflow to FLT_MAX, which rounds
// down to 2^127; zero and infinity give 1. Branch-free, so the lanes stay converged.
__device__ __forceinline__ uint32_t e4m3_power_of_2_scale_bits(uint32_t amax_bits) {
  const int biased =
      262 - static_cast<int>(amax_bits >> 23) - ((amax_bits & 0x7fffffu) > 0x600000u ? 1 : 0);
  const bool positive_finite = amax_bits - 1u < 0x7f7fffffu;
  return positive_finite ? static_cast<uint32_t>(min(biased, 254)) << 23 : 0x3f800000u;
}

// scale_inverse() of a power-of-2 scale given as FP32 bits (biased exponent 1..254), exactly:
// 2^-k, the subnormal 2^-127 for k = 127.
__device__ __forceinline__ uint32_t power_of_2_inverse_bits(uint32_t scale_bits) {
  const uint32_t biased = scale_bits >> 23;
  return biased == 254 ? 0x00400000u : (254 - biased) << 23;
}

// The FP32 values of the low and the high BF16 half of a word.
__device__ __forceinline__ float bf16_low(uint32_t pair) {
  return __uint_as_float(pair << 16);
}
__device__ __forceinline__ float bf16_high(uint32_t pair) {
  return __uint_as_float(pair & 0xffff0000u);
}

// fp8(a * scale) in the low byte and fp8(b * scale) in the high byte. Each product is one FP32
// multiply rounded to nearest, exactly what the host reference computes.
template <__nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint32_t quantize_pair(float a, float b, float scale) {
  return __nv_cvt_float2_to_fp8x2(make_float2(a * scale, b * scale), __NV_SATFINITE, kFormat);
}

// fp8(x * scale) for both BF16 halves of `pair`; the low half lands in the low byte.
template <__nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint32_t quantize_bf16_pair(uint32_t pair, float scale) {
  return quantize_pair<kFormat>(bf16_low(pair), bf16_high(pair), scale);
}

// Four FP8 bytes from two BF16 pairs, in element order.
template <__nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint32_t quantize_bf16_quad(uint32_t first_pair, uint32_t second_pair,
                                                       float scale) {
  return quantize_bf16_pair<kFormat>(first_pair, scale) |
         (quantize_bf16_pair<kFormat>(second_pair, scale) << 16);
}

}  // namespace gemmscope::detail
