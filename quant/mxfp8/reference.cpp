#include "quant/mxfp8/reference.h"

#include <algorithm>
#include <cmath>

#include "quant/block_scaled_shape.h"
#include "quant/fp8/format.h"
#include "quant/host_matrix.h"
#include "quant/mxfp8/detail/scaling.h"
#include "quant/mxfp8/e8m0.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {

HostQuantizedCopy reference_quantize_mxfp8(const std::vector<float>& values, int64_t rows,
                                           int64_t cols) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, OperandCopies::kRowwise);
  const SwizzledScaleLayout layout(rows, cols / kMxfp8BlockSize);
  HostQuantizedCopy copy;
  copy.rows = rows;
  copy.cols = cols;
  copy.data.assign(static_cast<size_t>(rows * cols), 0);
  copy.scale.assign(layout.bytes(), kSwizzledScalePadding);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t block = 0; block < layout.scale_cols(); ++block) {
      const float* x = &values[r * cols + block * kMxfp8BlockSize];
      uint8_t* q = &copy.data[r * cols + block * kMxfp8BlockSize];
      float amax = 0.0f;
      bool finite = true;
      for (int k = 0; k < kMxfp8BlockSize; ++k) {
        finite = finite && std::isfinite(x[k]);
        amax = std::max(amax, std::fabs(x[k]));
      }
      uint8_t scale = kMxfp8NanScale;
      if (finite) {
        scale = encode_e8m0_round_up(mxfp8_scale_target(amax));
        const float multiplier = std::ldexp(1.0f, 127 - static_cast<int>(scale));
        for (int k = 0; k < kMxfp8BlockSize; ++k)
          q[k] = fp8_encode(x[k] * multiplier, ElementFormat::kE4M3);
      } else {
        for (int k = 0; k < kMxfp8BlockSize; ++k)
          q[k] = kMxfp8NanElement;
      }
      copy.scale[layout.offset(r, block)] = scale;
    }
  }
  return copy;
}

HostQuantizedTensor reference_quantize_mxfp8_tensor(const std::vector<__nv_bfloat16>& input,
                                                    int64_t rows, int64_t cols,
                                                    OperandCopies copies) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, copies);
  const std::vector<float> values = widen_bf16(input);
  HostQuantizedTensor tensor;
  if (has_rowwise(copies))
    tensor.rowwise = reference_quantize_mxfp8(values, rows, cols);
  if (has_columnwise(copies)) {
    tensor.columnwise = reference_quantize_mxfp8(transposed(values, rows, cols), cols, rows);
  }
  return tensor;
}

std::vector<float> reference_dequantize_mxfp8(const HostQuantizedCopy& copy) {
  const SwizzledScaleLayout layout(copy.rows, copy.cols / kMxfp8BlockSize);
  std::vector<float> values(static_cast<size_t>(copy.rows * copy.cols));
  for (int64_t r = 0; r < copy.rows; ++r) {
    for (int64_t c = 0; c < copy.cols; ++c) {
      const float scale = decode_e8m0(copy.scale[layout.offset(r, c / kMxfp8BlockSize)]);
      values[r * copy.cols + c] =
          fp8_decode(copy.data[r * copy.cols + c], ElementFormat::kE4M3) * scale;
    }
  }
  return values;
}

}  // namespace gemmscope
