#include "quant/nvfp4/e2m1.h"

#include <cmath>

namespace gemmscope {
namespace {

// Magnitude of each code, in code order: the format definition.
constexpr double kMagnitudes[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

uint8_t with_sign(float value, int code) {
  return static_cast<uint8_t>(code | (std::signbit(value) ? 0x8 : 0x0));
}

// Where |value| lies between two neighbouring magnitudes: `fraction` (in [0, 1), exact in
// double because the gaps are powers of two) of the way from code `lower` to `lower + 1`.
// Returns false, with `code` already final, for NaN and for magnitudes at or beyond 6.
bool bracket(float value, uint8_t& code, int& lower, double& fraction) {
  if (std::isnan(value)) {
    code = 0x7;
    return false;
  }
  const double magnitude = std::fabs(static_cast<double>(value));
  lower = 0;
  while (lower < 7 && kMagnitudes[lower + 1] <= magnitude)
    ++lower;
  if (lower == 7) {
    code = with_sign(value, 7);
    return false;
  }
  fraction = (magnitude - kMagnitudes[lower]) / (kMagnitudes[lower + 1] - kMagnitudes[lower]);
  return true;
}

}  // namespace

uint8_t encode_e2m1(float value) {
  uint8_t code = 0;
  int lower = 0;
  double fraction = 0.0;
  if (!bracket(value, code, lower, fraction))
    return code;
  // A tie goes to the even code, the one whose mantissa bit is 0.
  const bool up = fraction > 0.5 || (fraction == 0.5 && (lower & 1) != 0);
  return with_sign(value, up ? lower + 1 : lower);
}

uint8_t encode_e2m1_stochastic(float value, uint16_t random_bits) {
  uint8_t code = 0;
  int lower = 0;
  double fraction = 0.0;
  if (!bracket(value, code, lower, fraction))
    return code;
  const double uniform = static_cast<double>(random_bits) / 65536.0;
  return with_sign(value, uniform < fraction ? lower + 1 : lower);
}

float decode_e2m1(uint8_t code) {
  const float magnitude = static_cast<float>(kMagnitudes[code & 0x7]);
  return (code & 0x8) != 0 ? -magnitude : magnitude;
}

}  // namespace gemmscope
