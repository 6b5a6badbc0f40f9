#include "quant/mxfp8/dequantize.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/dequantize_checks.h"
#include "quant/detail/launch_checks.h"
#include "quant/detail/store16.cuh"
#include "quant/mxfp8/detail/scaling.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

// Each thread dequantizes 16 consecutive elements of a row (one 16-byte load; half a block).
constexpr int kThreads = 256;
constexpr int kChunk = 16;

template <typename Out>
__global__ void __launch_bounds__(kThreads)
    mxfp8_dequantize_kernel(const uint8_t* data, const uint8_t* scale, int64_t rows, int64_t cols,
                            int64_t padded_scale_cols, Out* out) {
  const int64_t chunk = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t chunks_per_row = cols / kChunk;
  if (chunk >= rows * chunks_per_row)
    return;
  const int64_t row = chunk / chunks_per_row;
  const int64_t col = chunk % chunks_per_row * kChunk;
  const float block_scale = detail::e8m0_value(
      scale[swizzled_scale_offset(row, col / kMxfp8BlockSize, padded_scale_cols)]);
  const uint4 codes = __ldg(reinterpret_cast<const uint4*>(data + row * cols + col));
  const uint32_t words[4] = {codes.x, codes.y, codes.z, codes.w};
  float values[kChunk];
#pragma unroll
  for (int k = 0; k < kChunk / 2; ++k) {
    const auto pair = static_cast<__nv_fp8x2_storage_t>(words[k / 2] >> (16 * (k % 2)));
    const float2 decoded = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3)));
    values[2 * k] = decoded.x * block_scale;
    values[2 * k + 1] = decoded.y * block_scale;
  }
  detail::store16(out + row * cols + col, values);
}

template <typename Out>
void launch(const QuantizedTensor& q, Out* out, cudaStream_t stream, const std::string& context) {
  detail::require_block_scaled_operand(q, ElementFormat::kE4M3, ScaleLayout::kVec32Ue8m0,
                                       kMxfp8BlockSize, context);
  detail::require_device_pointer(q.data, 16, context + ": data");
  detail::require_device_pointer(out, 16, context + ": out");
  const int64_t chunks = q.rows * (q.cols / kChunk);
  const unsigned grid =
      detail::checked_grid((chunks + kThreads - 1) / kThreads, q.rows, q.cols, context);
  const int64_t padded_scale_cols = round_up_to(q.cols / kMxfp8BlockSize, kScaleTileCols);
  mxfp8_dequantize_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const uint8_t*>(q.data),
                                                         static_cast<const uint8_t*>(q.scale),
                                                         q.rows, q.cols, padded_scale_cols, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void dequantize_mxfp8(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  launch(q, out, stream, "dequantize_mxfp8");
}

void dequantize_mxfp8_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream) {
  launch(q, out, stream, "dequantize_mxfp8_to_bf16");
}

}  // namespace gemmscope
