// The CUTLASS grouped GEMM configurations of one kind, FP8 tensorwise E5M2 (gradient) x E4M3 with
// split accumulation (the FP8Current and FP8Delayed Dgrad and Wgrad).
// kernels/cutlass/detail/grouped_gemm_kernel.cuh lists them; one file a kind, so that the kinds
// compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> tensorwise_gradient_configurations() {
  // Both epilogues: Wgrad ran faster with 128x64 subtiles, Dgrad, which shares this kind, with
  // CUTLASS's but for one shape.
  // Tile runs: the Wgrad of small experts ran faster with them.
  return with_tile_runs(fp8_configurations<Tensorwise<cutlass::float_e5m2_t, PlainAccumulation>,
                                           192, WideEpilogue::kBoth>());
}

}  // namespace gemmscope::cutlass_grouped
