#pragma once
// The scale and element conversions the MXFP8 and NVFP4 kernels run, written for speed on the
// GPU (bit manipulation and FP32 roundings instead of loops and tables). They are
// GEMMSCOPE_HOST_DEVICE only so that host tests can sweep them against the reference codecs in
// quant/mxfp8/e8m0.h and quant/nvfp4/e2m1.h, which are written independently from the format
// definitions; the host reference quantizers use those, never these.

#include <cmath>
#include <cstdint>

#include "quant/float_bits.h"
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

// encode_e8m0_round_up of a value in [0, 2^127) (no NaN, infinity or saturation), without
// branches: the rounded-up exponent of a normal value is (bits + 0x7FFFFF) >> 23, and a subnormal
// rounds to code 1 above 2^-127 (mantissa 0x400000), else to code 0.
GEMMSCOPE_HOST_DEVICE inline uint32_t e8m0_round_up_below_2_127(float value) {
  const uint32_t bits = fp32_bits(value);
  return bits < 0x800000u ? (bits > 0x400000u ? 1u : 0u) : (bits + 0x7FFFFFu) >> 23;
}

// e8m0_reciprocal of a code below 0xFE: 2^(127 - code) is normal.
GEMMSCOPE_HOST_DEVICE inline float e8m0_reciprocal_below_fe(uint32_t code) {
  return fp32_from_bits((254u - code) << 23);
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

// The E2M1 rounding the conversions below share. A magnitude a (at most 6) lies in a range
// of fixed spacing q: 0.5 below 2 (codes 0..4 are 2a), 1 in [2, 4) (codes 4..6 are a + 2), 2 in
// [4, 6] (codes 6, 7 are a / 2 + 4). With P = max(2^floor(log2 a), 1), q = P / 2, and the FP32
// sum P + a * 2^-22 (one FMA) has its last mantissa bit worth q * 2^-22: the FMA's rounding is
// the rounding of a / q to an integer n, left in the low mantissa bits, and the exponent field
// is 127 + log2(P). The code n + 2 * log2(P) is therefore (sum & 7) + (sum >> 22) - 254. No
// table, no branch.
//
// The kernels pack eight codes into a word, and the constant 254 of each is subtracted once for
// all eight: the "biased" (stochastic) conversion returns code + 254 (sign included), and
//     sum over k of (biased_k << 4k) - kE2m1WordBias
// is the word with code k in nibble k (the arithmetic is exact modulo 2^32).
constexpr uint32_t kE2m1CodeBias = 254u;
constexpr uint32_t kE2m1WordBias = kE2m1CodeBias * 0x11111111u;

struct E2m1Split {
  float magnitude;  // |value| clamped to 6 (NaN: 6, encoded as 0x7)
  uint32_t sign;    // 0x8 for a negative value, else 0
  float spacing_p;  // P above
};

GEMMSCOPE_HOST_DEVICE inline E2m1Split e2m1_split(float value) {
  // Comparisons are false for NaN: NaN -> 6. (The GPU does each clamp in one FMNMX.)
  const float upper = value < 6.0f ? value : 6.0f;
  const float clamped = upper > -6.0f ? upper : -6.0f;
  const uint32_t bits = fp32_bits(clamped);
  const uint32_t power = bits & 0x7F800000u;
  return E2m1Split{fabsf(clamped), (bits >> 28) & 0x8u,
                   fp32_from_bits(power > 0x3F800000u ? power : 0x3F800000u)};
}

// e2m1_split of a value that is not NaN, without its sign (0; the caller supplies the sign bits
// some cheaper way): clamping |value| is one FMNMX instead of two clamps of the value. For
// non-NaN values magnitude and spacing_p equal e2m1_split's.
GEMMSCOPE_HOST_DEVICE inline E2m1Split e2m1_split_unsigned(float value) {
  const float magnitude = fminf(fabsf(value), 6.0f);
  const uint32_t power = fp32_bits(magnitude) & 0x7F800000u;
  return E2m1Split{magnitude, 0u, fp32_from_bits(power > 0x3F800000u ? power : 0x3F800000u)};
}

// code + kE2m1CodeBias of the integer n that `sum` (P + a * 2^-22 rounded) holds, with `sign`.
GEMMSCOPE_HOST_DEVICE inline uint32_t e2m1_biased_code_of_sum(float sum, uint32_t sign) {
  const uint32_t bits = fp32_bits(sum);
  return ((bits & 0x7u) | sign) + (bits >> 22);
}

// (bits & 0x7F800000) | 2 in one LOP3: written as PTX with the mask in a register, as ptxas
// otherwise spends two instructions on the two constants.
GEMMSCOPE_HOST_DEVICE inline uint32_t exponent_field_or_2(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  uint32_t result;
  asm("lop3.b32 %0, %1, %2, 2, 0xEA;" : "=r"(result) : "r"(bits), "r"(0x7F800000u));
  return result;
#else
  return (bits & 0x7F800000u) | 2u;
#endif
}

// The round-to-nearest conversion of the kernels' hot loops, a variant of the sum above that
// packs cheaper. Instead of P it adds P' = P + (2 log2 P + 256) ulp(P): the FMA's rounding is
// the same (the offset is a whole, even number of ulps), and the low mantissa bits of the sum
// are then n + 2 log2 P, the code itself, with bits 3..7 zero (the 256 keeps bit 8 set so that
// no borrow is needed for P = 1). P' comes from E = the magnitude's exponent field, with 2 in
// its low bits: E + (E >> 22) is 127 * 2 + 2 log2 P above it (one LEA.HI), and the maximum
// with 1.0 + 256 ulp covers magnitudes below 1 (P = 1). Returns the sum's bits; its low byte is
// encode_e2m1(value) & 7 (the magnitude's code: NaN gives 7, as there).
//
// e2m1_unclamped_code_sum is the same for a magnitude already known to lie in [0, 7): there
// the sum needs no clamp (magnitudes in (6, 7) round to n = 3 with P = 4, code 7, as 6 does).
GEMMSCOPE_HOST_DEVICE inline uint32_t e2m1_unclamped_code_sum(float magnitude) {
  const uint32_t exponent = exponent_field_or_2(fp32_bits(magnitude));
  const uint32_t offset_p = exponent + (exponent >> 22);
  const uint32_t p_prime = offset_p > 0x3F800100u ? offset_p : 0x3F800100u;
  return fp32_bits(fmaf(magnitude, 0x1p-22f, fp32_from_bits(p_prime)));
}

GEMMSCOPE_HOST_DEVICE inline uint32_t e2m1_magnitude_code_sum(float value) {
  return e2m1_unclamped_code_sum(fminf(fabsf(value), 6.0f));  // NaN -> 6
}

// __byte_perm on the GPU (one PRMT), written out on the host: byte k of the result is byte
// (selector nibble k) of the eight bytes {b:a}. The sign-replicating mode is not used.
GEMMSCOPE_HOST_DEVICE inline uint32_t select_bytes(uint32_t a, uint32_t b, uint32_t selector) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, selector);
#else
  const uint64_t both = uint64_t{b} << 32 | a;
  uint32_t result = 0;
  for (int k = 0; k < 4; ++k) {
    const uint32_t pick = (selector >> (4 * k)) & 0x7u;
    result |= static_cast<uint32_t>((both >> (8 * pick)) & 0xFFu) << (8 * k);
  }
  return result;
#endif
}

// Byte k of the result is the low byte of argument k.
GEMMSCOPE_HOST_DEVICE inline uint32_t gather_low_bytes(uint32_t b0, uint32_t b1, uint32_t b2,
                                                       uint32_t b3) {
  return select_bytes(select_bytes(b0, b1, 0x0040), select_bytes(b2, b3, 0x0040), 0x5410);
}

// Eight e2m1_magnitude_code_sum results as a word, code k in nibble k (sign bits 0): the low
// byte of sum_even + (sum_odd << 4) is a packed pair, and four pairs gather into the word.
GEMMSCOPE_HOST_DEVICE inline uint32_t pack_e2m1_magnitude_sums(const uint32_t (&sums)[8]) {
  return gather_low_bytes(sums[0] + (sums[1] << 4), sums[2] + (sums[3] << 4),
                          sums[4] + (sums[5] << 4), sums[6] + (sums[7] << 4));
}

// P + a * 2^-22 rounded toward zero: n = floor(a / q). The host has no per-operation rounding
// mode, so it corrects the nearest sum when that rounded up (for the tests that sweep this).
GEMMSCOPE_HOST_DEVICE inline float e2m1_floor_sum(float magnitude, float spacing_p) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rz(magnitude, 0x1p-22f, spacing_p);
#else
  const float sum = fmaf(magnitude, 0x1p-22f, spacing_p);
  return (sum - spacing_p) * 0x1p22f > magnitude ? fp32_from_bits(fp32_bits(sum) - 1u) : sum;
#endif
}

// encode_e2m1_stochastic plus kE2m1CodeBias: up from the lower neighbour n * q (n = floor(a / q))
// when uniform < (a - n * q) / q, i.e. when n * q + uniform * q < a. The left side is exact in
// FP32: n * q - q = (floor sum - (P + ulp(P))) * 2^22 (Sterbenz, then a power of two), and adding
// (1 + uniform) * q, a 17-bit significand times a power of two, gives a number of at most 20
// significant bits below 8. So the comparison is the reference's, exactly.
GEMMSCOPE_HOST_DEVICE inline uint32_t e2m1_biased_stochastic(const E2m1Split& split,
                                                             uint16_t random_bits) {
  const float sum = e2m1_floor_sum(split.magnitude, split.spacing_p);
  const uint32_t p_bits = fp32_bits(split.spacing_p);
  // (P + ulp(P)) * 2^22 and q = P / 2, by their exponent fields.
  const float lower_minus_q = fmaf(sum, 0x1p22f, -fp32_from_bits(p_bits + 1u + (22u << 23)));
  const float q = fp32_from_bits(p_bits - (1u << 23));
  const float one_plus_uniform = fp32_from_bits(0x3F800000u | (uint32_t{random_bits} << 7));
  const bool up = fmaf(one_plus_uniform, q, lower_minus_q) < split.magnitude;
  return e2m1_biased_code_of_sum(sum, split.sign) + (up ? 1u : 0u);
}

GEMMSCOPE_HOST_DEVICE inline uint32_t e2m1_biased_stochastic(float value, uint16_t random_bits) {
  return e2m1_biased_stochastic(e2m1_split(value), random_bits);
}

GEMMSCOPE_HOST_DEVICE inline uint8_t e2m1_round_stochastic(float value, uint16_t random_bits) {
  return static_cast<uint8_t>(e2m1_biased_stochastic(value, random_bits) - kE2m1CodeBias);
}

}  // namespace gemmscope::detail
