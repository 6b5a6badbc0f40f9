#include "quant/fp8/format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "quant/format_names.h"

namespace gemmscope {
namespace {

// What distinguishes the two formats: field widths and the exponent bias. E4M3 has no
// infinities and only one NaN mantissa, which is why its largest finite value keeps the
// all-ones exponent (1.75 * 2^8); E5M2 reserves that exponent like IEEE (1.75 * 2^15).
struct Fp8Spec {
  int mantissa_bits;
  int exponent_bias;
  float max_finite;
  uint8_t max_finite_code;
};

Fp8Spec spec_of(ElementFormat format) {
  require_fp8_format(format, "fp8 format");
  if (format == ElementFormat::kE4M3)
    return {3, 7, kE4M3MaxFinite, 0x7E};
  return {2, 15, kE5M2MaxFinite, 0x7B};
}

// The bit pattern of a non-negative value that lies exactly on the format's grid.
uint8_t encode_exact_magnitude(float magnitude, const Fp8Spec& spec) {
  if (magnitude == 0.0f)
    return 0;
  const int min_normal_exponent = 1 - spec.exponent_bias;
  int frexp_exponent = 0;
  std::frexp(magnitude, &frexp_exponent);  // magnitude = m * 2^e with m in [0.5, 1)
  const int exponent = frexp_exponent - 1;
  if (exponent < min_normal_exponent) {
    const float mantissa = std::ldexp(magnitude, spec.mantissa_bits - min_normal_exponent);
    return static_cast<uint8_t>(mantissa);
  }
  const float significand = std::ldexp(magnitude, spec.mantissa_bits - exponent);
  const int mantissa = static_cast<int>(significand) - (1 << spec.mantissa_bits);
  return static_cast<uint8_t>(((exponent + spec.exponent_bias) << spec.mantissa_bits) | mantissa);
}

}  // namespace

void require_fp8_format(ElementFormat format, const char* context) {
  if (format != ElementFormat::kE4M3 && format != ElementFormat::kE5M2) {
    throw std::invalid_argument(std::string(context) + ": format must be E4M3 or E5M2, got " +
                                to_string(format));
  }
}

float fp8_max_finite(ElementFormat format) {
  return spec_of(format).max_finite;
}

uint8_t fp8_encode(float value, ElementFormat format) {
  const Fp8Spec spec = spec_of(format);
  if (std::isnan(value))
    return 0x7F;
  const uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const float magnitude = std::fabs(value);
  if (magnitude >= spec.max_finite)
    return sign | spec.max_finite_code;

  // Grid spacing: 2^(e - mantissa_bits) in binade e, constant below the normal range.
  int frexp_exponent = 0;
  std::frexp(magnitude, &frexp_exponent);
  const int binade = std::max(frexp_exponent - 1, 1 - spec.exponent_bias);
  const int quantum_exponent = binade - spec.mantissa_bits;
  // Scaling by a power of two is exact, so `steps` and `fraction` carry no rounding error.
  const float steps = std::ldexp(magnitude, -quantum_exponent);
  float whole = std::floor(steps);
  const float fraction = steps - whole;
  const bool odd = std::fmod(whole, 2.0f) == 1.0f;
  if (fraction > 0.5f || (fraction == 0.5f && odd))
    whole += 1.0f;
  // Rounding up can reach the next binade (still on the grid) but never past max finite,
  // because max finite is itself a grid point above `magnitude`.
  return sign | encode_exact_magnitude(std::ldexp(whole, quantum_exponent), spec);
}

float fp8_decode(uint8_t bits, ElementFormat format) {
  const Fp8Spec spec = spec_of(format);
  const int exponent_bits = 7 - spec.mantissa_bits;
  const int exponent_field = (bits >> spec.mantissa_bits) & ((1 << exponent_bits) - 1);
  const int mantissa_field = bits & ((1 << spec.mantissa_bits) - 1);
  const bool negative = (bits & 0x80) != 0;
  const int all_ones = (1 << exponent_bits) - 1;

  float magnitude = 0.0f;
  if (format == ElementFormat::kE4M3 && exponent_field == all_ones &&
      mantissa_field == (1 << spec.mantissa_bits) - 1) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  if (format == ElementFormat::kE5M2 && exponent_field == all_ones) {
    if (mantissa_field != 0)
      return std::numeric_limits<float>::quiet_NaN();
    magnitude = std::numeric_limits<float>::infinity();
  } else if (exponent_field == 0) {
    magnitude =
        std::ldexp(static_cast<float>(mantissa_field), 1 - spec.exponent_bias - spec.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<float>((1 << spec.mantissa_bits) + mantissa_field),
                           exponent_field - spec.exponent_bias - spec.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace gemmscope
