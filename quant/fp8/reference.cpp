#include "quant/fp8/reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "quant/format_names.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {

float reference_amax(const __nv_bfloat16* input, int64_t count) {
  float amax = 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    const float value = __bfloat162float(input[i]);
    if (!std::isnan(value))
      amax = std::max(amax, std::fabs(value));
  }
  return amax;
}

Fp8Scales reference_current_scale(float amax, ElementFormat format) {
  const float scale = scale_from_amax(amax, fp8_max_finite(format), /*power_of_2=*/false);
  return {scale, scale_inverse(scale)};
}

void reference_cast_fp8(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        ElementFormat format, float scale, uint8_t* rowwise, uint8_t* columnwise) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const uint8_t bits = fp8_encode(__bfloat162float(input[r * cols + c]) * scale, format);
      if (rowwise != nullptr)
        rowwise[r * cols + c] = bits;
      if (columnwise != nullptr)
        columnwise[c * rows + r] = bits;
    }
  }
}

void reference_update_delayed_scaling(float* amax_history, int64_t history_length,
                                      ElementFormat format, float* scale, float* scale_inv) {
  float amax = 0.0f;
  for (int64_t i = 0; i < history_length; ++i)
    amax = std::fmax(amax, amax_history[i]);

  const float newest = amax_history[0];
  for (int64_t i = 0; i + 1 < history_length; ++i)
    amax_history[i] = amax_history[i + 1];
  amax_history[history_length - 1] = newest;
  amax_history[0] = 0.0f;

  *scale = delayed_scale_from_amax(amax, fp8_max_finite(format), *scale);
  *scale_inv = scale_inverse(*scale);
}

void reference_dequantize_fp8(const uint8_t* data, ElementFormat format, int64_t rows, int64_t cols,
                              const float* scales, ScaleLayout layout, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      float scale = 0.0f;
      switch (layout) {
        case ScaleLayout::kTensor:
          scale = scales[0];
          break;
        case ScaleLayout::kVec128:
          scale = scales[vec128_scale_index(r, c / kFp8ScaleBlock, rows)];
          break;
        case ScaleLayout::kBlock128x128:
          scale = scales[block128_scale_index(r / kFp8ScaleBlock, c / kFp8ScaleBlock, cols)];
          break;
        default:
          throw std::invalid_argument(
              std::string("reference_dequantize_fp8: not an FP8 scale layout: ") +
              to_string(layout));
      }
      out[r * cols + c] = fp8_decode(data[r * cols + c], format) * scale;
    }
  }
}

}  // namespace gemmscope
