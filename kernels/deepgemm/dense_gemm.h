#pragma once
// DeepGEMM's Hopper (sm_90a) FP8 GEMM with 1x128 x 128x128 block scales, the `deepgemm` provider
// of --provider (kernels/gemm_provider.h): FP8Block's Fprop and Dgrad, run by the public kernel
// that sets the state of the art for them (deepseek-ai/DeepGEMM, an optional dependency that
// cmake/deepgemm.cmake finds; none of its code is copied here). Our code is the host side: the
// checks, the configurations instantiated (tile, multicast), their order, the TMA descriptors
// over our operands and scales, and the launch.
//
// Same problem, same layouts as the `cutlass` provider (kernels/detail/fp8_block_gemm.h): the
// weights' 128x128 scales are passed as they are where ceil(K/128) is a multiple of 4; otherwise
// DeepGEMM's unpadded rows are copied out of our padded ones inside the timed run (one 2D memcpy,
// a few KB), so its cost counts. Wgrad (1x128 x 1x128) is refused: DeepGEMM's Hopper kernel for
// it writes FP32 only, where FP8Block's Wgrad writes BF16.
//
// Each configuration is a GroupedGemm of one group, so that a caller times them at steady state
// and keeps the fastest, as it does with make_cutlass_dense_gemms.

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// One GroupedGemm per configuration that can run `problem` on this GPU, best first by the rule
// in kernels/deepgemm/dense_gemm.cu, planned outside any timed region (planning enqueues nothing
// on `stream`). Throws Unsupported with the reason when the problem is not FP8Block's 1x128 x
// 128x128 GEMM, when TMA cannot take its sizes or addresses, when K is past what the
// instantiations' shared memory holds, when the GPU is not compute capability 9.0 with the SM
// count the kernels are compiled for, or in a build without DeepGEMM (saying how to get it).
// std::invalid_argument for a problem that is not one GEMM.
std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_dense_gemms(const GemmProblem& problem,
                                                                    cudaStream_t stream);

}  // namespace gemmscope
