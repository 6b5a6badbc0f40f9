#pragma once
// The two FP8 element formats (OCP E4M3 "fn" and E5M2), encoded and decoded on the host from
// their definitions. These are the references the GPU conversions (cuda_fp8.h, PTX
// cvt.rn.satfinite) are tested against bit for bit.
//
// Encoding rounds to nearest, ties to even, and saturates: magnitudes beyond the largest finite
// value, infinities included, become ±max finite (what TransformerEngine's casts do). NaN
// becomes 0x7F, the positive NaN of either format. Results too small for the subnormal range
// round to a zero of the input's sign.

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

constexpr float kE4M3MaxFinite = 448.0f;
constexpr float kE5M2MaxFinite = 57344.0f;

// Throws std::invalid_argument naming `format` and `context` unless it is E4M3 or E5M2.
void require_fp8_format(ElementFormat format, const char* context);

// 448 for E4M3, 57344 for E5M2.
float fp8_max_finite(ElementFormat format);

uint8_t fp8_encode(float value, ElementFormat format);

// Exact: every FP8 value is an FP32 value. E4M3 0x7F/0xFF and E5M2 exponent-31 codes with a
// non-zero mantissa are NaN; E5M2 0x7C/0xFC are ±infinity.
float fp8_decode(uint8_t bits, ElementFormat format);

}  // namespace gemmscope
