// The CUTLASS grouped GEMM configurations of one kind, FP8 tensorwise E5M2 (gradient) x E4M3 with
// split accumulation (the FP8Current and FP8Delayed Dgrad and Wgrad).
// kernels/detail/cutlass_grouped_gemm_kernel.cuh lists them; one file a kind, so that the kinds
// compile in parallel.

#include "kernels/detail/cutlass_grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> tensorwise_gradient_configurations() {
  using Kind = Tensorwise<cutlass::float_e5m2_t, PlainAccumulation>;
  std::vector<Configuration> configurations = fp8_configurations<Kind, 192>();
  // Wgrad's epilogue subtiles (kWideEpilogueN) as a configuration of their own: Dgrad, which
  // shares this kind, ran faster with CUTLASS's but for one shape.
  configurations.push_back(
      configuration<Kind, Cooperative, 128, 192, 128, 2, 1, kWideEpilogueN>(kLargeGroups));
  return configurations;
}

}  // namespace gemmscope::cutlass_grouped
