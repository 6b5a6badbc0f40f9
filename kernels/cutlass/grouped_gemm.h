#pragma once
// CUTLASS's Hopper (sm_90a) pointer-array grouped GEMM for BF16 and the FP8 recipes
// (kernels/cutlass/grouped_gemm.cu says which kinds, layouts and scales it takes, and why).

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/grouped_gemm.h"

namespace gemmscope {

// CUTLASS's grouped GEMM comes in several configurations (tile, cluster, schedule): one
// GroupedGemm for each configuration built for these groups' kind that can run them, best
// first by the rule kernels/cutlass/grouped_gemm.cu documents; a caller that can time them
// (--grouped=auto, bench/timing/steady_state_run.h) keeps the fastest. Planned outside any timed
// region. Throws Unsupported, naming every configuration's reason, when none can (or, in a build
// without CUTLASS, saying how to get it); std::invalid_argument for groups that are not one
// grouped layer (check_grouped_problems, kernels/grouped_problems.h).
std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream);

}  // namespace gemmscope
