#pragma once
// A grouped GEMM as a framework without a grouped kernel launches it: one cuBLASLt matmul (or,
// on GPUs without the recipe's tensor cores, one emulated GEMM) per group, in order, on one
// stream. With one group it is cuBLASLt's dense GEMM, the `cublaslt` provider.

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/cublaslt/context.h"
#include "kernels/cublaslt/gemm_plan.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// Plans every group outside any timed region. `emulate`: run each group through EmulatedGemm
// (MXFP8/NVFP4 on GPUs without their tensor cores) instead of a native GemmPlan. `context` must
// outlive the returned object. Throws Unsupported (quant/base/unsupported.h) with the reason when
// cuBLASLt cannot run a group on this GPU; std::invalid_argument for groups that are not one
// grouped layer (check_grouped_problems, kernels/grouped_problems.h).
std::unique_ptr<GroupedGemm> make_loop_grouped_gemm(const CublasLtContext& context,
                                                    const std::vector<GemmProblem>& groups,
                                                    AlgorithmChoice choice, bool emulate,
                                                    cudaStream_t stream);

}  // namespace gemmscope
