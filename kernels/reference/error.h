#pragma once
// How far a GEMM's output is from the reference GEMM (kernels/reference/gemm.h) of a problem's
// operands: both dequantized to FP32 and read as the GEMM reads them (left [P, K], right
// [K, Q], each K-major or not). What --verify reports as rel_err and recipe_err, and what the
// grouped-GEMM tests check each group with.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/gemm_problem.h"

namespace gemmscope {

// The relative Frobenius error of `output` ([P, Q] BF16, row-major) against the reference
// product of `operands.left` and `operands.right` (their output pointer is not read). NaN when
// `output` holds a NaN. Synchronises the stream.
double error_against_reference(const GemmProblem& operands, const __nv_bfloat16* output,
                               cudaStream_t stream);

}  // namespace gemmscope
