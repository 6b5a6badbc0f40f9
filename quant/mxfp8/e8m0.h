#pragma once
// E8M0 (UE8M0), the block-scale format of MXFP8, on the host: the reference that the GPU
// quantizers are checked against, written from the format definition.
//
// A code is an unsigned biased exponent: code e in [0, 254] stands for 2^(e - 127); code 255
// is NaN. There is no zero, no sign and no infinity.

#include <cstdint>

namespace gemmscope {

constexpr uint8_t kE8m0Nan = 0xFF;

// The smallest power of two at or above `value` (>= 0), as MX quantizers round block scales
// up so that the block's largest element never overflows. Values at or below 2^-127
// (including 0) give code 0; values above 2^127 (including +inf) saturate to 254; NaN gives
// 255.
uint8_t encode_e8m0_round_up(float value);

// 2^(code - 127) as a float (code 0 is the subnormal 2^-127), or NaN for code 255.
float decode_e8m0(uint8_t code);

}  // namespace gemmscope
