#pragma once
// DeepGEMM's Hopper (sm_90a) m-grouped contiguous FP8 GEMM with 1x128 x 128x128 block scales, the
// `deepgemm` provider of --grouped (kernels/gemm_provider.h): FP8Block's expert Fprop and Dgrad in
// one launch, all experts' rows one after another against one 3-D weight tensor, as mixture-of-
// experts trainers built on DeepGEMM run them (deepseek-ai/DeepGEMM, an optional dependency that
// cmake/deepgemm.cmake finds; none of its code is copied here). Our code is the host side: the
// checks, the configurations instantiated (and compiled at run time for a case's N and K, as
// DeepGEMM's own JIT does), their order, the row-to-expert table, the TMA descriptors over our
// operands and scales, and the launch (kernels/deepgemm/grouped_gemm.cu).
//
// What it takes of the groups (one GemmProblem an expert, as every grouped provider):
// - the experts' rows contiguous in one left operand and one output, each expert's first row and
//   row count a multiple of 128 (the kernel's tile rows belong to one expert);
// - the weights contiguous, expert after expert ([G, Q, K], K-major);
// - the left operand's 1x128 scales stacked (QuantizedTensor::stacked_scale: one [K/128][rows]
//   tensor, one TMA descriptor over every expert), which the FP8 grouped quantizer writes;
// - the weights' 128x128 scales expert after expert, unpadded where ceil(K/128) is a multiple of
//   4; otherwise they are copied into DeepGEMM's unpadded rows inside the timed run (one 2D
//   memcpy, a few KB), so that its cost counts, as the CUTLASS provider repacks them.
// Wgrad (1x128 x 1x128, K-grouped) is refused: DeepGEMM's Hopper kernel for it writes FP32, where
// FP8Block's Wgrad writes BF16. BF16 groups go to DeepGEMM's m-grouped BF16 kernel
// (kernels/deepgemm/grouped_bf16_gemm.h), compiled at run time only.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// Whether this build has the kernels (false where cmake/deepgemm.cmake found no DeepGEMM).
extern const bool kDeepGemmGroupedBuilt;

// What the label of a configuration compiled for its case's N and K says (the build's
// instantiations' labels do not).
inline constexpr const char* kDeepGemmCompiledLabel = "N and K compiled in at run time";

// Whether make_deepgemm_grouped_gemms also compiles its configurations for each case's N and K at
// run time (kernels/deepgemm/detail/jit_kernel.h): a build with DeepGEMM, GEMMSCOPE_JIT not off.
bool deepgemm_grouped_jit_enabled();

// The rows each expert's first row and row count must be a multiple of (the kernel's tile rows);
// gemm_bench pads the experts' rows to it when --grouped names this provider.
constexpr int64_t kDeepGemmGroupRowAlignment = 128;

// One GroupedGemm per configuration that can run `groups` on this GPU, best first (waves x tile
// area): each compiled for the groups' N and K at run time first, where
// deepgemm_grouped_jit_enabled() and the compile succeeds (the first use of a shape on a machine
// compiles its four kernels in parallel, several seconds; later ones read them from the cache),
// then the build's instantiations, whose labels say why where the compile could not be had.
// Planned outside any timed region: the row-to-expert table is uploaded synchronously, nothing is
// enqueued on `stream`. BF16 groups: make_deepgemm_grouped_bf16_gemms. Throws Unsupported with
// the reason when the groups are not FP8Block's 1x128 x 128x128 GEMMs laid out as above, when K is
// past what the instantiations' shared memory holds, when the GPU is not compute capability 9.0
// with the SM count the kernels are compiled for, or in a build without DeepGEMM (saying how to get
// it); std::invalid_argument for groups that are not one grouped layer (check_grouped_problems,
// kernels/grouped_problems.h).
std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream);

}  // namespace gemmscope
