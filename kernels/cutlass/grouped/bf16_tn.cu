// The CUTLASS grouped GEMM configurations of one kind, BF16, TN: left [P, K] and right [Q, K] both
// K-major (the BF16 Fprop). kernels/cutlass/detail/grouped_gemm_kernel.cuh lists them; one file a
// kind, so that the kinds compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> bf16_tn_configurations() {
  return bf16_configurations<Bf16<true, true>>();
}

}  // namespace gemmscope::cutlass_grouped
