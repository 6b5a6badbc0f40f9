#pragma once
// The scale and element conversions the MXFP8 and NVFP4 kernels run, written for speed on the
// GPU (bit manipulation and compare-and-count instead of loops and tables). They are
// GEMMSCOPE_HOST_DEVICE only so that host tests can sweep them against the reference codecs in
// quant/e8m0.h and quant/e2m1.h, which are written independently from the format definitions;
// the host reference quantizers use those, never these.

#include <cstdint>
#include <cstring>

#include "quant/host_device.h"

namespace gemmscope::detail {

GEMMSCOPE_HOST_DEVICE inline uint32_t float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

GEMMSCOPE_HOST_DEVICE inline float float_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

// encode_e8m0_round_up from the FP32 fields: a normal 1.m x 2^(E-127) rounds up to 2^(E-127)
// when m is 0, else to 2^(E-126); a subnormal rounds up to 2^-127 (code 0) or 2^-126 (code 1).
GEMMSCOPE_HOST_DEVICE inline uint8_t e8m0_round_up(float value) {
  const uint32_t bits = float_bits(value) & 0x7FFFFFFFu;
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
    return float_from_bits(0x7FC00000u);
  if (code == 0xFE)
    return float_from_bits(0x00400000u);
  return float_from_bits(static_cast<uint32_t>(254 - code) << 23);
}

// 2^(code - 127), or NaN for code 255.
GEMMSCOPE_HOST_DEVICE inline float e8m0_value(uint8_t code) {
  if (code == 0xFF)
    return float_from_bits(0x7FC00000u);
  if (code == 0)
    return float_from_bits(0x00400000u);
  return float_from_bits(static_cast<uint32_t>(code) << 23);
}

// encode_e2m1: the code of |value| is the number of rounding thresholds it passes. A threshold
// is the midpoint of two neighbouring magnitudes; `>` where the tie goes to the lower (even)
// code, `>=` where it goes to the upper one. NaN encodes as +6, like the reference.
GEMMSCOPE_HOST_DEVICE inline uint8_t e2m1_round_nearest(float value) {
  const uint32_t bits = float_bits(value);
  const uint8_t sign = static_cast<uint8_t>((bits >> 28) & 0x8u);
  const float a = float_from_bits(bits & 0x7FFFFFFFu);
  if (!(a == a))
    return 0x7;
  const int code = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) +
                   (a >= 3.5f) + (a > 5.0f);
  return static_cast<uint8_t>(code) | sign;
}

// encode_e2m1_stochastic: the lower neighbour's code is the number of magnitudes at or below
// |value|; the fraction of the gap above it is exact in FP32 (the subtraction is exact because
// the neighbour is at least half the value, and the gaps 0.5, 1, 2 are powers of two).
GEMMSCOPE_HOST_DEVICE inline uint8_t e2m1_round_stochastic(float value, uint16_t random_bits) {
  const uint32_t bits = float_bits(value);
  const uint8_t sign = static_cast<uint8_t>((bits >> 28) & 0x8u);
  const float a = float_from_bits(bits & 0x7FFFFFFFu);
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
