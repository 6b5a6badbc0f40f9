// The CUTLASS grouped GEMM configurations of one kind, FP8 tensorwise E4M3 x E4M3 with fast
// accumulation (the FP8Current and FP8Delayed Fprop).
// kernels/cutlass/detail/grouped_gemm_kernel.cuh lists them; one file a kind, so that the kinds
// compile in parallel.

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> tensorwise_fprop_configurations() {
  return fp8_configurations<Tensorwise<cutlass::float_e4m3_t, FastAccumulation>, 256,
                            WideEpilogue::kWide>();
}

}  // namespace gemmscope::cutlass_grouped
