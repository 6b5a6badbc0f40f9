#include "quant/e2m1.h"

#include <cmath>

namespace gemmscope {
namespace {

// Magnitude of each code, in code order: the format definition.
constexpr double kMagnitudes[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};

// The largest code whose magnitude does not exceed `magnitude` (finite, >= 0).
int floor_code(double magnitude) {
  int code = 0;
  while (code < 7 && kMagnitudes[code + 1] <= magnitude)
    ++code;
  return code;
}

uint8_t with_sign(float value, int code) {
  return static_cast<uint8_t>(code | (std::signbit(value) ? 0x8 : 0x0));
}

}  // namespace

uint8_t encode_e2m1(float value) {
  if (std::isnan(value))
    return 0x7;
  const double magnitude = std::fabs(static_cast<double>(value));
  const int lower = floor_code(magnitude);
  if (lower == 7)
    return with_sign(value, 7);
  // Differences are exact in double, so the tie test below is exact.
  const double below = magnitude - kMagnitudes[lower];
  const double above = kMagnitudes[lower + 1] - magnitude;
  int code = lower;
  if (above < below || (above == below && (lower & 1) != 0))
    code = lower + 1;
  return with_sign(value, code);
}

uint8_t encode_e2m1_stochastic(float value, uint16_t random_bits) {
  if (std::isnan(value))
    return 0x7;
  const double magnitude = std::fabs(static_cast<double>(value));
  const int lower = floor_code(magnitude);
  if (lower == 7)
    return with_sign(value, 7);
  const double fraction =
      (magnitude - kMagnitudes[lower]) / (kMagnitudes[lower + 1] - kMagnitudes[lower]);
  const double uniform = static_cast<double>(random_bits) / 65536.0;
  return with_sign(value, uniform < fraction ? lower + 1 : lower);
}

float decode_e2m1(uint8_t code) {
  const float magnitude = static_cast<float>(kMagnitudes[code & 0x7]);
  return (code & 0x8) != 0 ? -magnitude : magnitude;
}

}  // namespace gemmscope
