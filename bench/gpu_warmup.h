#pragma once
// Keeps the GPU busy with BF16 GEMMs on random data for a few seconds before the first case,
// so that the first cases are not timed while clocks and power are still ramping up.

#include <cuda_runtime.h>

#include "kernels/cublaslt_context.h"

namespace gemmscope {

void warm_up_gpu(double seconds, const CublasLtContext& cublas, cudaStream_t stream);

}  // namespace gemmscope
