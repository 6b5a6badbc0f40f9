#include "bench/recipes/block_scaled_recipe.h"

namespace gemmscope {

std::string BlockScaledRecipe::unsupported_reason(const DeviceInfo& device) const {
  if (has_native_gemm(device) || emulate_)
    return "";
  return name() +
         " GEMMs need Blackwell tensor cores (compute capability 10.0 or newer) in "
         "cuBLASLt; this GPU is " +
         device.compute_capability() +
         ". --emulate runs them as an exact emulation (dequantize to BF16, BF16 GEMM) instead";
}

}  // namespace gemmscope
