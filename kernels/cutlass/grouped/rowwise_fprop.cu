// The CUTLASS grouped GEMM configurations of one kind, FP8 rowwise E4M3 x E4M3 with fast
// accumulation (the FP8Rowwise Fprop): the tensorwise Fprop's tiles, the epilogue reading each
// group's two scale vectors (kernels/cutlass/detail/grouped_gemm_kernel.cuh).

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> rowwise_fprop_configurations() {
  // Tile runs: where K is short (Qwen3-30B-A3B's expert_down, K = 768) each tile's epilogue, which
  // loads its group's two vectors before it scales, is a larger share of the tile; runs of 4 took
  // 4% off that case at steady state (H200), and cost no instantiation.
  return with_tile_runs(fp8_configurations<Rowwise<FastAccumulation>, 256, WideEpilogue::kWide>());
}

}  // namespace gemmscope::cutlass_grouped
