#pragma once
// GPU tests skip themselves, with the reason, on machines without a usable GPU (CI).

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace gemmscope::testing {

// Empty when a CUDA device is usable, otherwise why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // Clear the sticky error so later checks start clean.
    return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  }
  if (count == 0)
    return "no CUDA device";
  return "";
}

}  // namespace gemmscope::testing

#define GEMMSCOPE_REQUIRE_GPU()                                                           \
  do {                                                                                    \
    const std::string gemmscope_reason_ = ::gemmscope::testing::gpu_unavailable_reason(); \
    if (!gemmscope_reason_.empty())                                                       \
      GTEST_SKIP() << gemmscope_reason_;                                                  \
  } while (0)
