// The CUTLASS grouped GEMM configurations of one kind, FP8 rowwise E4M3 x E4M3 with split
// accumulation (the FP8Rowwise Dgrad and Wgrad): split accumulation holds two sets of
// accumulators, so the wide tile is 128x192, as the tensorwise gradient kind's.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> rowwise_gradient_configurations() {
  // Tile runs, as the tensorwise gradient kind's: 4% off Qwen3-30B-A3B's Dgrad expert_up at 16
  // experts a rank (H200, steady state). The 128x64 epilogue subtile that kind also lists did no
  // better here (within 0.1%), so it is not instantiated.
  return with_tile_runs(fp8_configurations<Rowwise<PlainAccumulation>, 192>());
}

}  // namespace gemmscope::cutlass_grouped
