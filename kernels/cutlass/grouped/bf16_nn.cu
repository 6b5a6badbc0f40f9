// The CUTLASS grouped GEMM configurations of one kind, BF16, NN: left [P, K] K-major, right stored
// [K, Q] (the BF16 Dgrad). kernels/cutlass/detail/grouped_gemm_kernel.cuh lists them; one file a
// kind, so that the kinds compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> bf16_nn_configurations() {
  return bf16_configurations<Bf16<true, false>>();
}

}  // namespace gemmscope::cutlass_grouped
