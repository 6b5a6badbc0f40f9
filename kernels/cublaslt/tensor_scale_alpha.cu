#include "kernels/cublaslt/tensor_scale_alpha.h"

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

__global__ void tensor_scale_alpha_kernel(const float* left, const float* right, float* alpha,
                                          float* beta) {
  *alpha = (left != nullptr ? *left : 1.0f) * (right != nullptr ? *right : 1.0f);
  *beta = 0.0f;
}

}  // namespace

void compute_tensor_scale_alpha(const float* left, const float* right, float* alpha, float* beta,
                                cudaStream_t stream) {
  tensor_scale_alpha_kernel<<<1, 1, 0, stream>>>(left, right, alpha, beta);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
