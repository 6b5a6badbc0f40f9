#include "quant/dequantize.h"

#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/format_names.h"
#include "quant/fp8/dequantize.h"
#include "quant/mxfp8/dequantize.h"
#include "quant/nvfp4/dequantize.h"

namespace gemmscope {
namespace {

// BF16 operands (layout kNone) are not quantized: widening them is exact.
__global__ void widen_bf16_kernel(const __nv_bfloat16* in, float* out, int64_t count) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = __bfloat162float(in[i]);
  }
}

void widen_bf16(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  if (q.format != ElementFormat::kBF16 || q.rows <= 0 || q.cols <= 0) {
    throw std::invalid_argument(
        "dequantize: an operand without scales must be BF16 of positive size");
  }
  const int64_t count = q.rows * q.cols;
  const int64_t blocks = (count + 255) / 256;
  widen_bf16_kernel<<<static_cast<int>(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(q.data), out, count);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

// One case per scale layout; each recipe family dequantizes its own layouts in its own file.
void dequantize(const QuantizedTensor& q, float* out, cudaStream_t stream) {
  switch (q.scale_layout) {
    case ScaleLayout::kNone:
      widen_bf16(q, out, stream);
      return;
    case ScaleLayout::kTensor:
    case ScaleLayout::kVec128:
    case ScaleLayout::kBlock128x128:
    case ScaleLayout::kOuterVec:
      dequantize_fp8(q, out, stream);
      return;
    case ScaleLayout::kVec32Ue8m0:
      dequantize_mxfp8(q, out, stream);
      return;
    case ScaleLayout::kVec16Ue4m3:
      dequantize_nvfp4(q, out, stream);
      return;
  }
  throw std::invalid_argument(std::string("dequantize: unsupported scale layout ") +
                              to_string(q.scale_layout));
}

void dequantize_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream) {
  switch (q.scale_layout) {
    case ScaleLayout::kVec32Ue8m0:
      dequantize_mxfp8_to_bf16(q, out, stream);
      return;
    case ScaleLayout::kVec16Ue4m3:
      dequantize_nvfp4_to_bf16(q, out, stream);
      return;
    default:
      throw std::invalid_argument(std::string("dequantize_to_bf16: not exact for scale layout ") +
                                  to_string(q.scale_layout));
  }
}

}  // namespace gemmscope
