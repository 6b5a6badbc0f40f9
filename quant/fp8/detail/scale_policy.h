#pragma once
// How FP8 recipes turn an amax into a scale, after TransformerEngine. One definition shared by
// the CUDA kernels and the host references, so both apply the same policy; the host tests pin
// every branch to hand-checked values.
//
// Terms: `scale` is the quantization factor (stored = fp8(x * scale)); `scale_inv` = 1 / scale
// is the dequantization factor that cuBLASLt's scale pointers take (x ~ stored * scale_inv).
//
// amax itself is the NaN-ignoring max of |x| (TE's amax uses __hmax / fmaxf, which drop NaN);
// infinities count. NaN elements still quantize to NaN.

#include "quant/float_bits.h"
#include "quant/host_device.h"

namespace gemmscope {

constexpr float kFp32MaxFinite = 3.40282347e38f;

GEMMSCOPE_HOST_DEVICE inline bool fp32_is_finite(float value) {
  return (fp32_bits(value) & 0x7f800000u) != 0x7f800000u;
}

// IEEE division rounded to nearest on both sides, whatever --use_fast_math says.
GEMMSCOPE_HOST_DEVICE inline float divide_rn(float numerator, float denominator) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(numerator, denominator);
#else
  return numerator / denominator;
#endif
}

// Current (tensorwise) and block scaling: TE's compute_scale_from_amax with epsilon 0.
//   amax <= 0, inf or NaN  -> 1 (nothing to map to the format's range; keeps values as they are)
//   fmt_max / amax overflows FP32 (amax below ~1.3e-36 for E4M3) -> FLT_MAX
//   otherwise              -> fmt_max / amax, rounded to nearest
// With `power_of_2` (block recipes) the scale is rounded down to a power of two by clearing its
// mantissa bits, so scale_inv is exact and amax still maps to at most fmt_max; FLT_MAX becomes
// 2^127.
GEMMSCOPE_HOST_DEVICE inline float scale_from_amax(float amax, float fmt_max, bool power_of_2) {
  if (!(amax > 0.0f) || !fp32_is_finite(amax))
    return 1.0f;
  float scale = divide_rn(fmt_max, amax);
  if (!fp32_is_finite(scale))
    scale = kFp32MaxFinite;
  if (power_of_2)
    scale = fp32_from_bits(fp32_bits(scale) & 0xff800000u);
  return scale;
}

// Delayed scaling (TE's amax_and_scale_update, margin 0): the new scale from the amax-history
// reduction, or the previous scale when that amax is zero, negative, inf or NaN; a quotient that
// overflows FP32 becomes FLT_MAX.
GEMMSCOPE_HOST_DEVICE inline float delayed_scale_from_amax(float history_amax, float fmt_max,
                                                           float previous_scale) {
  float scale = (history_amax > 0.0f && fp32_is_finite(history_amax))
                    ? divide_rn(fmt_max, history_amax)
                    : previous_scale;
  if (fp32_bits(scale) << 1 == 0xff000000u)
    scale = kFp32MaxFinite;  // +-inf
  return scale;
}

// The dequantization factor cuBLASLt reads: 1 / scale, rounded to nearest. FLT_MAX gives a
// subnormal, which is why nothing here may be built with flush-to-zero.
GEMMSCOPE_HOST_DEVICE inline float scale_inverse(float scale) {
  return divide_rn(1.0f, scale);
}

}  // namespace gemmscope
