#pragma once
// DeepGEMM's Hopper m-grouped contiguous BF16 GEMM (sm90_bf16_gemm_impl with
// GemmType::MGroupedContiguous), BF16's expert Fprop (TN) and Dgrad (NN) through the `deepgemm`
// provider of --grouped: make_deepgemm_grouped_gemms (kernels/deepgemm/grouped_gemm.h) hands BF16
// groups here. Our code is the host side, as for FP8Block: the checks, the configurations, the
// TMA descriptors over our operands, and the launch (kernels/deepgemm/grouped_bf16_gemm.cpp).
//
// No instantiation of it is built: each configuration is compiled for the case's N and K at run
// time (kernels/deepgemm/detail/jit_kernel.h), as DeepGEMM's own launch compiles it, so it costs
// the build nothing; where that cannot be, it is refused with the reason.
//
// What it takes of the groups, beside what the FP8Block kernel takes of rows (whole 128-row
// tiles, one after another, kernels/deepgemm/detail/m_grouped.h): BF16 operands, the left one
// K-major (X or dY), the weights expert after expert either K-major ([G, N, K], Fprop) or not
// ([G, K, N], Dgrad), N and K multiples of 8 (TMA's 16-byte rows), and for Dgrad's weights K a
// multiple of 64 (a k-tile must not read the next expert's rows). Wgrad (K-grouped) is refused.

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// One GroupedGemm per configuration, best first (waves x tile area), each compiled for the
// groups' N and K at run time. Throws Unsupported with the reason where the groups are not as
// above, the GPU is not the one the kernels are compiled for, or the run-time compile cannot be
// had.
std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_grouped_bf16_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream);

}  // namespace gemmscope
