#pragma once
// CUTLASS's Hopper (sm_90a) dense GEMMs, the `cutlass` provider of --provider
// (kernels/gemm_provider.h): FP8Block's 1x128 x 128x128 block scales (Fprop, Dgrad) and
// 1x128 x 1x128 (Wgrad), E4M3 operands, both K-major, the same GemmProblem cuBLASLt's
// VEC128_32F / BLK128x128_32F plan runs (kernels/cublaslt/gemm_plan.h), with the scales where our
// quantizers put them (quant/fp8/scale_layout.h): nothing is repacked, so run() launches the
// GEMM kernel alone (stream-K configurations: one memset before it).
//
// It comes in several configurations (cooperative or ping-pong schedule, tile, cluster,
// persistent or stream-K scheduler), each a GroupedGemm of one group, so that a caller times
// them at steady state and keeps the fastest, as it does with make_cutlass_grouped_gemms.
// kernels/cutlass/dense_gemm.cpp lists them and the rule that orders them.

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// One GroupedGemm per configuration that can run `problem` on this GPU, best first by the
// documented rule; planned on `stream`, outside any timed region. Throws Unsupported with the
// reason when the problem is not FP8Block's (formats, scale layouts, fast accumulation, not TN),
// when TMA cannot take its sizes or addresses, when the GPU is not compute capability 9.0, in a
// build without CUTLASS (saying how to get it), or, naming each configuration's reason, when no
// configuration can run it. Checks that need no GPU come first, so a machine without one gets
// the same refusals. std::invalid_argument for a problem that is not one GEMM (contraction
// sizes differ, missing pointers).
std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_dense_gemms(const GemmProblem& problem,
                                                                   cudaStream_t stream);

}  // namespace gemmscope
