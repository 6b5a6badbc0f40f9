// make_deepgemm_grouped_gemms in a build without DeepGEMM (cmake/deepgemm.cmake found none): the
// provider exists, so --grouped=deepgemm parses everywhere, and says how to get it.

#include "kernels/deepgemm/grouped_gemm.h"
#include "quant/base/unsupported.h"

namespace gemmscope {

const bool kDeepGemmGroupedBuilt = false;

bool deepgemm_grouped_jit_enabled() {
  return false;
}

std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_grouped_gemms(
    const std::vector<GemmProblem>& /*groups*/, cudaStream_t /*stream*/) {
  throw Unsupported(
      "built without DeepGEMM: configure with the network (CMake fetches it) or "
      "-DGEMMSCOPE_DEEPGEMM_DIR=<a clone of https://github.com/deepseek-ai/DeepGEMM> (it needs "
      "CUTLASS too); the FP8Block expert Fprop and Dgrad cases of --grouped=deepgemm need it");
}

}  // namespace gemmscope
