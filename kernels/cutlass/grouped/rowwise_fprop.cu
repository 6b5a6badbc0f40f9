// The CUTLASS grouped GEMM configurations of one kind, FP8 rowwise E4M3 x E4M3 with fast
// accumulation (the FP8Rowwise Fprop): the tensorwise Fprop's tiles, the epilogue reading each
// group's two scale vectors (kernels/cutlass/detail/grouped_gemm_kernel.cuh).

#include "kernels/cutlass/detail/grouped_gemm_kernel.cuh"

namespace gemmscope::cutlass_grouped {

std::vector<Configuration> rowwise_fprop_configurations() {
  return fp8_configurations<Rowwise<FastAccumulation>, 256, WideEpilogue::kWide>();
}

}  // namespace gemmscope::cutlass_grouped
