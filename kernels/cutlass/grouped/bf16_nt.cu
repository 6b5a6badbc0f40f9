// The CUTLASS grouped GEMM configurations of one kind, BF16, NT: left stored [K, P], right stored
// [K, Q], K varying per group (the BF16 Wgrad). kernels/cutlass/detail/grouped_gemm_kernel.cuh
// lists them; one file a kind, so that the kinds compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> bf16_nt_configurations() {
  return with_tile_runs(bf16_configurations<Bf16<false, false>, WideEpilogue::kWide>());
}

}  // namespace gemmscope::cutlass_grouped
