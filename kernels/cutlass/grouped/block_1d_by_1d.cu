// The CUTLASS grouped GEMM configurations of one kind, FP8 E4M3 with 1x128 x 1x128 block scales, K
// varying per group (the FP8Block Wgrad). kernels/cutlass/detail/grouped_gemm_kernel.cuh lists
// them; one file a kind, so that the kinds compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> block_1d_by_1d_configurations() {
  return with_tile_runs(fp8_configurations<Block1dBy1d, 128, WideEpilogue::kWide>());
}

}  // namespace gemmscope::cutlass_grouped
