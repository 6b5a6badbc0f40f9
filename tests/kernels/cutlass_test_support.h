#pragma once
// What the tests of CUTLASS's kernels (kernels/cutlass_*_gemm*) share: whether this build and
// GPU can run them, and a stream of their own. tests/kernels/CMakeLists.txt defines
// GEMMSCOPE_WITH_CUTLASS (0 or 1) from cmake/cutlass.cmake.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "quant/base/cuda_check.h"
#include "tests/gpu_test_support.h"

#ifndef GEMMSCOPE_WITH_CUTLASS
#error "tests/kernels/CMakeLists.txt defines GEMMSCOPE_WITH_CUTLASS (0 or 1)"
#endif

namespace gemmscope::testing {

inline constexpr const char* kBuiltWithoutCutlass = "built without CUTLASS (cmake/cutlass.cmake)";

// Why the CUTLASS kernels (sm_90a) cannot run here, or "" when they can.
inline std::string cutlass_unavailable_reason() {
  if (!GEMMSCOPE_WITH_CUTLASS)
    return kBuiltWithoutCutlass;
  const std::string no_gpu = gpu_unavailable_reason();
  if (!no_gpu.empty())
    return no_gpu;
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    return "the kernels are sm_90a; this GPU is compute capability " + std::to_string(major) + "." +
           std::to_string(minor);
  }
  return "";
}

struct TestStream {
  TestStream() { CUDA_CHECK(cudaStreamCreate(&stream)); }
  ~TestStream() { cudaStreamDestroy(stream); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  cudaStream_t stream = nullptr;
};

}  // namespace gemmscope::testing

// GPU tests of the kernels: skip, saying why, unless they can run.
#define GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90()                                         \
  do {                                                                              \
    const std::string reason_ = ::gemmscope::testing::cutlass_unavailable_reason(); \
    if (!reason_.empty())                                                           \
      GTEST_SKIP() << reason_;                                                      \
  } while (0)

// Refusal tests: they need the kernels built, not a GPU.
#define GEMMSCOPE_REQUIRE_CUTLASS_BUILD()                         \
  do {                                                            \
    if (!GEMMSCOPE_WITH_CUTLASS)                                  \
      GTEST_SKIP() << ::gemmscope::testing::kBuiltWithoutCutlass; \
  } while (0)
