#pragma once
// FP32 values as their IEEE-754 bit patterns and back, on the host and in kernels: the scale
// rules and the amax reductions work on bits (sign and mantissa masks, integer max of
// non-negative floats).

#include <cstdint>
#include <cstring>

#include "quant/host_device.h"

namespace gemmscope {

GEMMSCOPE_HOST_DEVICE inline uint32_t fp32_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

GEMMSCOPE_HOST_DEVICE inline float fp32_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace gemmscope
