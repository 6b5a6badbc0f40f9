#pragma once
// NVFP4 operands (E2M1 pairs, E4M3 block scales in the VEC16_UE4M3 swizzled layout, FP32
// tensor_scale) back to wide types on the GPU. Enqueued on `stream`, no host synchronisation
// (the tensor scale is read on the device). dequantize_nvfp4 is the ScaleLayout::kVec16Ue4m3
// case of dequantize() (quant/dequantize.h).
//
//   dequantize_nvfp4:          element * block scale * tensor_scale, in FP32: the values the
//                              operand stands for, for verification against the inputs.
//   dequantize_nvfp4_to_bf16:  element * block scale, WITHOUT the per-tensor factor, in BF16:
//                              exact (an E2M1 times an E4M3 has at most 6 significant bits and
//                              lies in [2^-10, 2688]). The emulated block-scaled GEMM multiplies
//                              both operands' tensor_scale into its alpha instead, as cuBLASLt's
//                              native NVFP4 GEMM does.
//
// A columnwise copy that was Hadamard-transformed reads back as the transformed values; the
// transform cancels in the Wgrad product dYᵀ·X, where both operands carry it.
//
// Both outputs are row-major [q.rows, q.cols] device buffers, 16-byte aligned. Throws
// std::invalid_argument when q is not an NVFP4 operand (format E2M1, layout kVec16Ue4m3, and
// for the FP32 variant a tensor_scale), its shape is not positive with cols a multiple of 16,
// or a pointer is null or misaligned (data 8 bytes).

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "quant/quantized_tensor.h"

namespace gemmscope {

void dequantize_nvfp4(const QuantizedTensor& q, float* out, cudaStream_t stream);
void dequantize_nvfp4_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream);

}  // namespace gemmscope
