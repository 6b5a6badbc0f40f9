#pragma once
// cuBLAS's grouped batched GEMM (cublasGemmGroupedBatchedEx): every group's BF16 product in
// one call (kernels/cublas/grouped_gemm.cpp says how the row-major problems map onto it).

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/grouped_gemm.h"

namespace gemmscope {

// Plans outside any timed region. Throws Unsupported (quant/base/unsupported.h) with the reason
// when the groups are not BF16 or cuBLAS cannot run them; std::invalid_argument for groups that
// are not one grouped layer (check_grouped_problems, kernels/grouped_problems.h).
std::unique_ptr<GroupedGemm> make_cublas_grouped_gemm(const std::vector<GemmProblem>& groups,
                                                      cudaStream_t stream);

}  // namespace gemmscope
