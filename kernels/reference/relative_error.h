#pragma once
// How far a GEMM's output is from a reference: the relative Frobenius error
// ||got - expected|| / ||expected||, summed in double on the GPU. NaN or inf anywhere in `got`
// (an element the GEMM never wrote to a poisoned buffer, an overflow) makes the result NaN/inf.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace gemmscope {

// Synchronises `stream` to read the result back: call it outside timed regions.
double relative_frobenius_error(const __nv_bfloat16* got, const float* expected, size_t count,
                                cudaStream_t stream);

}  // namespace gemmscope
