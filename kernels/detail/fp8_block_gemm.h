#pragma once
// One dense FP8Block GEMM as the Hopper block-scaled kernels outside cuBLASLt take it (CUTLASS's,
// kernels/cutlass/dense_gemm.h; DeepGEMM's, kernels/deepgemm/dense_gemm.h), and the checks they
// share: D[m, n] (BF16, row-major) = A[m, k] · B[n, k]ᵀ, A and B E4M3 and K-major, A's scales
// 1x128, B's 128x128 (1D2D) or 1x128 (1D1D), both in our (cuBLASLt's) layouts,
// quant/fp8/scale_layout.h. Plain C++.

#include <string>

#include "kernels/gemm_problem.h"

namespace gemmscope::detail {

// The two FP8Block GEMMs (DeepGEMM's names): "1D2D" is 1x128 x 128x128 (Fprop, Dgrad), "1D1D"
// 1x128 x 1x128 (Wgrad).
enum class BlockScaling { k1d2d, k1d1d };

struct Fp8BlockGemm {
  BlockScaling scaling = BlockScaling::k1d2d;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
};

// `problem` as an Fp8BlockGemm, or Unsupported, its message starting with "<who>: ", saying why
// such a kernel cannot run it: not FP8Block's formats or scale layouts, not TN, a second scaling
// level, fast accumulation, sizes past 32 bits, K not a multiple of 16 or N of 8 (TMA's 16-byte
// rows), operands, output or left scales not 16-byte aligned (TMA), right scales not FP32-aligned.
// std::invalid_argument for a problem that is not one GEMM (contraction sizes differ, missing
// pointers). Needs no GPU.
Fp8BlockGemm check_fp8_block_gemm(const GemmProblem& problem, const std::string& who);

}  // namespace gemmscope::detail
