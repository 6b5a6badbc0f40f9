// make_cutlass_dense_gemms in a build without CUTLASS (cmake/cutlass.cmake found none): the
// provider exists, so --provider=cutlass parses everywhere, and says how to get it.

#include "kernels/cutlass/dense_gemm.h"
#include "quant/base/unsupported.h"

namespace gemmscope {

std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_dense_gemms(const GemmProblem& /*problem*/,
                                                                   cudaStream_t /*stream*/) {
  throw Unsupported(
      "built without CUTLASS: pip install nvidia-cutlass (or clone NVIDIA/cutlass), then "
      "reconfigure, with -DGEMMSCOPE_CUTLASS_DIR=<dir with include/cutlass> unless python3 finds "
      "the wheel; the FP8Block cases of --provider=cutlass need it");
}

}  // namespace gemmscope
