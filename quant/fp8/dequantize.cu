#include "quant/fp8/dequantize.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/format_names.h"
#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

template <ScaleLayout kLayout>
__device__ __forceinline__ float scale_of(const float* scales, int64_t row, int64_t col,
                                          int64_t rows, int64_t cols) {
  if constexpr (kLayout == ScaleLayout::kVec128) {
    return scales[vec128_scale_index(row, col / kFp8ScaleBlock, rows)];
  } else if constexpr (kLayout == ScaleLayout::kBlock128x128) {
    return scales[block128_scale_index(row / kFp8ScaleBlock, col / kFp8ScaleBlock, cols)];
  } else if constexpr (kLayout == ScaleLayout::kOuterVec) {
    return scales[row];
  } else {
    return scales[0];
  }
}

// FP8 -> FP16 is exact for both formats, and FP16 -> FP32 is exact.
template <ScaleLayout kLayout, __nv_fp8_interpretation_t kFormat>
__global__ void __launch_bounds__(kThreads)
    dequantize_kernel(const uint8_t* data, int64_t rows, int64_t cols, const float* scales,
                      float* out) {
  const int64_t count = rows * cols;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const int64_t row = i / cols;
    const int64_t col = i % cols;
    const float value = __half2float(__half(__nv_cvt_fp8_to_halfraw(data[i], kFormat)));
    out[i] = value * scale_of<kLayout>(scales, row, col, rows, cols);
  }
}

template <ScaleLayout kLayout>
void launch(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  const int64_t blocks = std::min(ceil_div(q.rows * q.cols, kThreads), kMaxBlocks);
  const auto* data = static_cast<const uint8_t*>(q.data);
  const auto* scales = static_cast<const float*>(q.scale);
  if (q.format == ElementFormat::kE4M3) {
    dequantize_kernel<kLayout, __NV_E4M3>
        <<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(data, q.rows, q.cols, scales,
                                                                     out);
  } else {
    dequantize_kernel<kLayout, __NV_E5M2>
        <<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(data, q.rows, q.cols, scales,
                                                                     out);
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void dequantize_fp8(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  detail::require_positive("dequantize_fp8", "rows", q.rows);
  detail::require_positive("dequantize_fp8", "cols", q.cols);
  detail::require_not_null("dequantize_fp8", "data", q.data);
  detail::require_not_null("dequantize_fp8", "scale", q.scale);
  detail::require_not_null("dequantize_fp8", "out", out);
  if (q.format != ElementFormat::kE4M3 && q.format != ElementFormat::kE5M2) {
    throw std::invalid_argument(std::string("dequantize_fp8: format must be E4M3 or E5M2, got ") +
                                to_string(q.format) + " (layout " + to_string(q.scale_layout) +
                                ")");
  }
  switch (q.scale_layout) {
    case ScaleLayout::kTensor:
      launch<ScaleLayout::kTensor>(q, out, stream);
      return;
    case ScaleLayout::kVec128:
      launch<ScaleLayout::kVec128>(q, out, stream);
      return;
    case ScaleLayout::kBlock128x128:
      launch<ScaleLayout::kBlock128x128>(q, out, stream);
      return;
    case ScaleLayout::kOuterVec:
      launch<ScaleLayout::kOuterVec>(q, out, stream);
      return;
    default:
      throw std::invalid_argument(std::string("dequantize_fp8: not an FP8 scale layout: ") +
                                  to_string(q.scale_layout));
  }
}

}  // namespace gemmscope
