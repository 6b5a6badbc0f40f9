// The CUTLASS grouped GEMM configurations of one kind, FP8 E4M3 with 1x128 x 128x128 block scales
// (the FP8Block Fprop and Dgrad). kernels/cutlass/detail/grouped_gemm_kernel.cuh lists them; one
// file a kind, so that the kinds compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> block_1d_by_2d_configurations() {
  // Both epilogues: 128x64 subtiles ran faster at 16 and 32 experts a rank, slower at 128. Tile
  // runs: the short-K expert_down Fprop ran faster with them.
  return with_tile_runs(fp8_configurations<Block1dBy2d, 128, WideEpilogue::kBoth>());
}

}  // namespace gemmscope::cutlass_grouped
