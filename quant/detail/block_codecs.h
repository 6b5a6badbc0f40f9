#pragma once
// The scale and element conversions the MXFP8 and NVFP4 kernels run, written for speed on the
// GPU (bit manipulation and compare-and-count instead of loops and tables). They are
// GEMMSCOPE_HOST_DEVICE only so that host tests can sweep them against the reference codecs in
// quant/e8m0.h and quant/e2m1.h, which are written independently from the format definitions;
// the host reference quantizers use those, never these.

#include <cstdint>

#include "quant/fp32_bits.h"
#include "quant/host_device.h"

namespace gemmscope::detail {

// encode_e8m0_round_up from the FP32 fields: a normal 1.m x 2^(E-127) rounds up to 2^(E-127)
// when m is 0, else to 2^(E-126); a subnormal rounds up to 2^-127 (code 0) or 2^-126 (code 1).
GEMMSCOPE_HOST_DEVICE inline uint8_t e8m0_round_up(float value) {
  const uint32_t bits = fp32_bits(value) & 0x7FFFFFFFu;
  if (bits > 0x7F800000u)
    return 0xFF;  // NaN
  if (bits == 0x7F800000u)
    return 0xFE;  // +inf saturates
  const uint32_t exponent = bits >> 23;
  const uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0)
    return mantissa > 0x400000u ? 1 : 0;
  if (mantissa == 0 || exponent == 0xFE)
    return static_cast<uint8_t>(exponent);
  return static_cast<uint8_t>(exponent + 1);
}

// 1 / 2^(code - 127) = 2^(127 - code), exact for every code: the factor that brings a block's
// elements into E4M3 range. Code 254 gives the subnormal 2^-127; code 255 (NaN) gives NaN.
GEMMSCOPE_HOST_DEVICE inline float e8m0_reciprocal(uint8_t code) {
  if (code == 0xFF)
    return fp32_from_bits(0x7FC00000u);
  if (code == 0xFE)
    return fp32_from_bits(0x00400000u);
  return fp32_from_bits(static_cast<uint32_t>(254 - code) << 23);
}

// 2^(code - 127), or NaN for code 255.
GEMMSCOPE_HOST_DEVICE inline float e8m0_value(uint8_t code) {
  if (code == 0xFF)
    return fp32_from_bits(0x7FC00000u);
  if (code == 0)
    return fp32_from_bits(0x00400000u);
  return fp32_from_bits(static_cast<uint32_t>(code) << 23);
}

// encode_e2m1 in a few instructions. The magnitudes below 2 are the multiples of 0.5 (codes
// 0..3 = 2 * |value|), those in [2, 4) the integers 2, 3 (codes 4, 5 = |value| + 2) and 4, 6
// are codes 6, 7 (= |value| / 2 + 4). Rounding the scaled value to an integer, ties to even,
// is therefore exactly round-to-nearest-even on E2M1; adding 2^23 does that rounding in the
// FP32 adder and leaves the integer in the low mantissa bits. (The scalings by 2 and 1/2 are
// exact, so an FMA contraction changes nothing.) NaN encodes as +6, like the reference.
GEMMSCOPE_HOST_DEVICE inline uint8_t e2m1_round_nearest(float value) {
  const uint32_t bits = fp32_bits(value);
  const uint8_t sign = static_cast<uint8_t>((bits >> 28) & 0x8u);
  float a = fp32_from_bits(bits & 0x7FFFFFFFu);
  if (!(a == a))
    return 0x7;
  a = a < 6.0f ? a : 6.0f;
  const float scaled = a < 2.0f ? a * 2.0f : (a < 4.0f ? a : a * 0.5f);
  const uint32_t offset = a < 2.0f ? 0u : (a < 4.0f ? 2u : 4u);
  const uint32_t code = (fp32_bits(scaled + 8388608.0f) & 0xFu) + offset;
  return static_cast<uint8_t>(code) | sign;
}

// encode_e2m1_stochastic: the lower neighbour's code is the number of magnitudes at or below
// |value|; the fraction of the gap above it is exact in FP32 (the subtraction is exact because
// the neighbour is at least half the value, and the gaps 0.5, 1, 2 are powers of two).
GEMMSCOPE_HOST_DEVICE inline uint8_t e2m1_round_stochastic(float value, uint16_t random_bits) {
  const uint32_t bits = fp32_bits(value);
  const uint8_t sign = static_cast<uint8_t>((bits >> 28) & 0x8u);
  const float a = fp32_from_bits(bits & 0x7FFFFFFFu);
  if (!(a == a))
    return 0x7;
  if (a >= 6.0f)
    return static_cast<uint8_t>(0x7 | sign);
  const int lower =
      (a >= 0.5f) + (a >= 1.0f) + (a >= 1.5f) + (a >= 2.0f) + (a >= 3.0f) + (a >= 4.0f);
  const float lower_magnitude =
      lower <= 4 ? static_cast<float>(lower) * 0.5f : static_cast<float>(lower - 2);
  const float inverse_gap = lower < 4 ? 2.0f : (lower < 6 ? 1.0f : 0.5f);
  const float fraction = (a - lower_magnitude) * inverse_gap;
  const float uniform = static_cast<float>(random_bits) * (1.0f / 65536.0f);
  return static_cast<uint8_t>(lower + (uniform < fraction ? 1 : 0)) | sign;
}

}  // namespace gemmscope::detail
