#pragma once
// E2M1 (FP4), the element format of NVFP4, on the host: the reference that the GPU
// quantizers are checked against, written from the format definition.
//
// A code is 4 bits: sign, 2 exponent bits (bias 1), 1 mantissa bit. Magnitudes by code:
// 0, 0.5 (subnormal), 1, 1.5, 2, 3, 4, 6. There is no infinity and no NaN.
// Two codes share a byte, the first element (lower column index) in the low nibble, as
// cuda_fp4.h's __nv_fp4x2_e2m1 and cuBLASLt's CUDA_R_4F_E2M1 store them.
//
// Non-finite policy (the one cuda_fp4.h's saturating conversion follows): ±inf and finite
// values beyond ±6 saturate to ±6; NaN encodes as +6 (code 0x7). The sign of a value that
// rounds to zero is kept (code 0x8 for -0).

#include <cstdint>

namespace gemmscope {

constexpr float kE2m1Max = 6.0f;

// Round to nearest, ties to the even code (the one whose mantissa bit is 0).
uint8_t encode_e2m1(float value);

// Stochastic rounding: |value| between neighbouring magnitudes lo < hi rounds to hi with
// probability (|value| - lo) / (hi - lo), decided by 16 uniform random bits: to hi exactly when
// random_bits / 65536 < (|value| - lo) / (hi - lo). Saturation and NaN as for encode_e2m1.
uint8_t encode_e2m1_stochastic(float value, uint16_t random_bits);

// The value of the low nibble of `code`.
float decode_e2m1(uint8_t code);

// One byte holding two codes: `first` in the low nibble.
inline uint8_t pack_e2m1_pair(uint8_t first, uint8_t second) {
  return static_cast<uint8_t>((first & 0xF) | ((second & 0xF) << 4));
}
inline uint8_t e2m1_first_of_pair(uint8_t byte) {
  return byte & 0xF;
}
inline uint8_t e2m1_second_of_pair(uint8_t byte) {
  return byte >> 4;
}

}  // namespace gemmscope
