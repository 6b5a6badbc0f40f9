// make_cutlass_grouped_gemms in a build without CUTLASS (cmake/cutlass.cmake found none): the
// implementation exists, so --grouped=cutlass parses everywhere, and says how to get it.

#include "kernels/cutlass/grouped_gemm.h"
#include "quant/base/unsupported.h"

namespace gemmscope {

std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_grouped_gemms(
    const std::vector<GemmProblem>& /*groups*/, cudaStream_t /*stream*/) {
  throw Unsupported(
      "built without CUTLASS: pip install nvidia-cutlass (or clone NVIDIA/cutlass), then "
      "reconfigure, with -DGEMMSCOPE_CUTLASS_DIR=<dir with include/cutlass> unless python3 finds "
      "the wheel; the grouped BF16 and FP8 cases of --grouped=cutlass need it");
}

}  // namespace gemmscope
