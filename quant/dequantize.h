#pragma once
// Dequantization of any quantized operand to FP32 on the GPU, for verification (the reference
// GEMM of the dequantized operands is what proves a quantizer and its scale layout right).
// value = stored element * its scale, per q.scale_layout. Enqueued on `stream`, no host
// synchronisation.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "quant/quantized_tensor.h"

namespace gemmscope {

// out: device buffer of q.rows * q.cols FP32, row-major [q.rows, q.cols]. Throws
// std::invalid_argument naming the layout or format it cannot handle, or a bad size.
void dequantize(const QuantizedTensor& q, float* out, cudaStream_t stream);

// The block-scaled formats (MXFP8, NVFP4) to BF16, exactly, for the emulated GEMM: element times
// block scale, WITHOUT NVFP4's per-tensor factor (the GEMM folds that into alpha). Throws
// std::invalid_argument for layouts whose dequantized values BF16 cannot hold exactly.
void dequantize_to_bf16(const QuantizedTensor& q, __nv_bfloat16* out, cudaStream_t stream);

}  // namespace gemmscope
