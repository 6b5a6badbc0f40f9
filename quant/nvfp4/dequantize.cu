#include "quant/nvfp4/dequantize.h"

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
#include "quant/nvfp4/detail/scaling.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

// Each thread dequantizes one 16-element block (one 8-byte load).
constexpr int kThreads = 256;

// The magnitude of an E2M1 code's low 3 bits: 0.5 * mantissa for exponent 0, else
// (1 + mantissa / 2) * 2^(exponent - 1), built directly as FP32 bits.
__device__ inline float e2m1_value(uint32_t code) {
  const uint32_t exponent = (code >> 1) & 0x3u;
  const uint32_t mantissa = code & 0x1u;
  const float magnitude = exponent == 0
                              ? 0.5f * static_cast<float>(mantissa)
                              : fp32_from_bits(((exponent + 126u) << 23) | (mantissa << 22));
  return (code & 0x8u) != 0 ? -magnitude : magnitude;
}

// `tensor_scale` null: the per-tensor factor is left out (the BF16 variant).
template <typename Out>
__global__ void __launch_bounds__(kThreads)
    nvfp4_dequantize_kernel(const uint8_t* data, const uint8_t* scale, const float* tensor_scale,
                            int64_t rows, int64_t cols, int64_t padded_scale_cols, Out* out) {
  const int64_t block = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t blocks_per_row = cols / kNvfp4BlockSize;
  if (block >= rows * blocks_per_row)
    return;
  const int64_t row = block / blocks_per_row;
  const int64_t col = block % blocks_per_row * kNvfp4BlockSize;
  const uint8_t scale_code =
      scale[swizzled_scale_offset(row, col / kNvfp4BlockSize, padded_scale_cols)];
  const float block_scale = __half2float(__half(__nv_cvt_fp8_to_halfraw(scale_code, __NV_E4M3)));
  const uint2 codes = __ldg(reinterpret_cast<const uint2*>(data + (row * cols + col) / 2));
  float values[kNvfp4BlockSize];
#pragma unroll
  for (int k = 0; k < kNvfp4BlockSize; ++k) {
    const uint32_t word = k < 8 ? codes.x : codes.y;
    values[k] = e2m1_value(word >> (4 * (k % 8))) * block_scale;
  }
  if (tensor_scale != nullptr) {
    const float factor = *tensor_scale;
#pragma unroll
    for (int k = 0; k < kNvfp4BlockSize; ++k)
      values[k] *= factor;
  }
  detail::store16(out + row * cols + col, values);
}

template <typename Out>
void launch(const QuantizedTensor& q, const float* tensor_scale, Out* out, cudaStream_t stream,
            const std::string& context) {
  detail::require_block_scaled_operand(q, ElementFormat::kE2M1, ScaleLayout::kVec16Ue4m3,
                                       kNvfp4BlockSize, context);
  detail::require_device_pointer(q.data, 8, context + ": data");
  detail::require_device_pointer(out, 16, context + ": out");
  const int64_t blocks = q.rows * (q.cols / kNvfp4BlockSize);
  const unsigned grid =
      detail::checked_grid((blocks + kThreads - 1) / kThreads, q.rows, q.cols, context);
  const int64_t padded_scale_cols = round_up_to(q.cols / kNvfp4BlockSize, kScaleTileCols);
  nvfp4_dequantize_kernel<<<grid, kThreads, 0, stream>>>(
      static_cast<const uint8_t*>(q.data), static_cast<const uint8_t*>(q.scale), tensor_scale,
      q.rows, q.cols, padded_scale_cols, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void dequantize_nvfp4(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  if (q.tensor_scale == nullptr) {
    throw std::invalid_argument("dequantize_nvfp4: tensor_scale is null");
  }
  launch(q, q.tensor_scale, out, stream, "dequantize_nvfp4");
}

void dequantize_nvfp4_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream) {
  launch(q, static_cast<const float*>(nullptr), out, stream, "dequantize_nvfp4_to_bf16");
}

}  // namespace gemmscope
