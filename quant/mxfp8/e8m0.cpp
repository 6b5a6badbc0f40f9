#include "quant/mxfp8/e8m0.h"

#include <cmath>
#include <limits>

namespace gemmscope {

uint8_t encode_e8m0_round_up(float value) {
  if (std::isnan(value))
    return kE8m0Nan;
  if (value <= std::ldexp(1.0f, -127))
    return 0;
  if (value > std::ldexp(1.0f, 127))
    return 254;
  // value = fraction * 2^exponent with fraction in [0.5, 1): the power of two at or above it
  // is 2^(exponent - 1) when the fraction is exactly 0.5, else 2^exponent.
  int exponent = 0;
  const float fraction = std::frexp(value, &exponent);
  const int ceil_log2 = fraction == 0.5f ? exponent - 1 : exponent;
  return static_cast<uint8_t>(ceil_log2 + 127);
}

float decode_e8m0(uint8_t code) {
  if (code == kE8m0Nan)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(code) - 127);
}

}  // namespace gemmscope
