#include "kernels/detail/sm90_device.h"

#include <cuda_runtime.h>

#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

namespace gemmscope::detail {

int require_sm90(const std::string& what) {
  int device = 0, major = 0, minor = 0, sm_count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  if (major != 9 || minor != 0) {
    throw Unsupported(what +
                      " is built for sm_90a (Hopper's wgmma and TMA), which runs on compute "
                      "capability 9.0 only; this GPU is " +
                      std::to_string(major) + "." + std::to_string(minor));
  }
  return sm_count;
}

}  // namespace gemmscope::detail
