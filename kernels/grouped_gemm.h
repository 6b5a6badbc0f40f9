#pragma once
// A grouped GEMM: the G products of one mixture-of-experts linear layer on one rank, one per
// expert. The groups share formats, layouts and the contraction or output widths, and differ
// in how many routed rows each expert got:
//
//   for each group g:  output_g[P_g, Q_g] = alpha_g · left_g[P_g, K_g] · right_g[K_g, Q_g]
//
// each group a GemmProblem (kernels/gemm_problem.h) with its own operands, scales and output.
// Fprop and Dgrad vary P_g (the expert's rows); Wgrad varies K_g (each expert's dW sums over
// its own rows: a K-grouped GEMM). Groups with no rows are left out by the caller.
//
// Several providers run the same groups, so that their times can be compared on one case name
// (--grouped, kernels/gemm_provider.h): a loop of cuBLASLt GEMMs, what a framework without a
// grouped kernel launches (kernels/cublaslt/loop_grouped_gemm.h); cuBLAS's grouped batched GEMM
// (BF16, kernels/cublas/grouped_gemm.h); CUTLASS's Hopper grouped GEMM (BF16, FP8,
// kernels/cutlass/grouped_gemm.h). A dense GEMM is a GroupedGemm of one group.

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/gemm_problem.h"

namespace gemmscope {

class GroupedGemm {
 public:
  virtual ~GroupedGemm() = default;
  // Enqueues every group's product; no host synchronisation.
  virtual void run(cudaStream_t stream) const = 0;
  // What ran, for the case's label: "loop of 32 cuBLASLt GEMMs (algo ...)", ...
  virtual std::string algorithm() const = 0;
  // Whether the products are emulated (kernels/cublaslt/emulated_gemm.h) rather than run natively.
  virtual bool emulated() const { return false; }
  // About how many kernels run() launches, rounded up (a benchmark queues them behind a held
  // stream, which takes only so many).
  virtual size_t launches() const = 0;
};

}  // namespace gemmscope
