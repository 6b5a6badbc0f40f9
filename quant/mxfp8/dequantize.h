#pragma once
// MXFP8 operands (E4M3 data, E8M0 scales in the VEC32_UE8M0 swizzled layout) back to wide
// types on the GPU: value = element * 2^(scale - 127). Enqueued on `stream`, no host
// synchronisation. dequantize_mxfp8 is the ScaleLayout::kVec32Ue8m0 case of dequantize()
// (quant/dequantize.h).
//
// Both outputs are row-major [q.rows, q.cols] device buffers. FP32 is exact. BF16, which the
// emulated block-scaled GEMM feeds to a BF16 GEMM, is exact too whenever a block's scale lies in
// [2^-124, 2^119], i.e. for every block of a BF16 tensor whose amax is at least about 2^-116
// and below 2^127 (outside that the product can fall under BF16's subnormal spacing or
// overflow). A NaN scale (a block that held inf or NaN) reads back as NaN.
//
// Throws std::invalid_argument when q is not an MXFP8 operand (format E4M3, layout
// kVec32Ue8m0), its shape is not positive with cols a multiple of 32, or a pointer is null or
// misaligned (data 16 bytes, out 16 bytes).

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "quant/quantized_tensor.h"

namespace gemmscope {

void dequantize_mxfp8(const QuantizedTensor& q, float* out, cudaStream_t stream);
void dequantize_mxfp8_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream);

}  // namespace gemmscope
