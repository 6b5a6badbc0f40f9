#pragma once
// NVFP4 keeps an FP32 per-tensor factor beside each operand's block scales; a GEMM folds the
// product of both operands' factors into its alpha. The factors live on the GPU (quantization
// writes them inside timed regions), so alpha is computed there too, in stream order.

#include <cuda_runtime.h>

namespace gemmscope {

// *alpha = (left ? *left : 1) * (right ? *right : 1), and *beta = 0, on the GPU.
void compute_tensor_scale_alpha(const float* left, const float* right, float* alpha, float* beta,
                                cudaStream_t stream);

}  // namespace gemmscope
