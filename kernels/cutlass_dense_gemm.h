#pragma once
// CUTLASS's Hopper (sm_90a) dense GEMMs, the `cutlass` provider of --provider
// (kernels/dense_provider.h).

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/gemm_plan.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// One GroupedGemm (a group of one) for each configuration built for the problem's kind that can
// run it, best first; a caller that can time them (--provider=auto) keeps the fastest. Throws
// Unsupported, naming every configuration's reason, when none can.
std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_dense_gemms(const GemmProblem& problem,
                                                                   cudaStream_t stream);

}  // namespace gemmscope
