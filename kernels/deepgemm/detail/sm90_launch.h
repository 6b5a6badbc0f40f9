#pragma once
// What launching any of DeepGEMM's Hopper kernels takes of the host, whichever kernel family
// (kernels/deepgemm/detail/sm90_fp8_1d2d.cuh for FP8 block scales, grouped_bf16_gemm.cpp for
// BF16): the persistent grid and cluster they are compiled for, the TMA descriptors over our
// operands, the GPU check, and the launch through cudaLaunchKernelExC, which takes a kernel
// instantiated by the build or one loaded from a cubin compiled at run time alike. Host code
// only: no DeepGEMM header is included.

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/detail/sm90_device.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

namespace gemmscope::deepgemm {

constexpr uint32_t kSmCount = 132;  // H100 SXM and H200: the persistent grid, a template argument
constexpr uint32_t kLoaderThreads = 128;
constexpr uint32_t kMulticast = 2;               // CTAs of a cluster
constexpr uint32_t kSharedMemoryLimit = 232448;  // sm_90's 227 KB a block

constexpr uint32_t align_up(uint32_t value, uint32_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The widest TMA swizzle (128, 64, 32 bytes) whose span divides a row of `bytes`; 0 for none.
constexpr uint32_t swizzle_for(uint32_t bytes) {
  for (const uint32_t mode : {128u, 64u, 32u}) {
    if (bytes % mode == 0)
      return mode;
  }
  return 0;
}

// Waves x tile area, waves = ceil(tiles / SMs), for block_m x block_n tiles of an [m, n] output: a
// first guess at the order that a caller's trial then settles, as kernels/cutlass/dense_gemm.cpp
// orders CUTLASS's. An m-grouped GEMM's rows are whole tiles of each expert, so its m is their sum.
inline double modelled_time(uint32_t block_m, uint32_t block_n, int64_t m, int64_t n) {
  const int64_t tiles = ((m + block_m - 1) / block_m) * ((n + block_n - 1) / block_n);
  return static_cast<double>((tiles + kSmCount - 1) / kSmCount) * block_m * block_n;
}

// `configurations` best first by modelled_time for an [m, n] output (each configuration's tile
// from `tile(config)`, a {block_m, block_n} pair); ties keep the list order.
template <typename Configuration, typename Tile>
std::vector<const Configuration*> by_modelled_time(const std::vector<Configuration>& configurations,
                                                   int64_t m, int64_t n, Tile tile) {
  const auto time = [&](const Configuration* c) {
    const auto [block_m, block_n] = tile(*c);
    return modelled_time(block_m, block_n, m, n);
  };
  std::vector<const Configuration*> ordered;
  for (const Configuration& config : configurations)
    ordered.push_back(&config);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const auto* a, const auto* b) { return time(a) < time(b); });
  return ordered;
}

inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled(const char* who) {
  static void* const function = [] {
    void* found_function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found_function, 12000,
                                                cudaEnableDefault, &found));
    return found == cudaDriverEntryPointSuccess ? found_function : nullptr;
  }();
  if (function == nullptr)
    throw Unsupported(std::string(who) + ": the driver has no cuTensorMapEncodeTiled");
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
}

// A 2D tensor map over [outer, inner] elements (`row_bytes` apart), boxes of [box_outer,
// box_inner], as DeepGEMM's kernels read or write them.
inline CUtensorMap tensor_map(const char* who, CUtensorMapDataType type, const void* base,
                              uint64_t inner, uint64_t outer, uint64_t row_bytes,
                              uint32_t box_inner, uint32_t box_outer, uint32_t swizzle) {
  const CUtensorMapSwizzle mode = swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                  : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                  : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                  : CU_TENSOR_MAP_SWIZZLE_NONE;
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map{};
  const CUresult result =
      encode_tiled(who)(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, mode, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(who) + ": cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}

// The GPU check every kernel needs: sm_90 with the SM count the kernels are compiled for.
inline void require_deepgemm_gpu(const char* who) {
  const int sm_count = detail::require_sm90(who);
  if (sm_count != static_cast<int>(kSmCount)) {
    throw Unsupported(std::string(who) + ": its persistent kernels are compiled for " +
                      std::to_string(kSmCount) + " SMs (H100 SXM, H200); this GPU has " +
                      std::to_string(sm_count));
  }
}

// One kernel's launch but for its stream and arguments: a cluster of kMulticast CTAs, one CTA an
// SM, `threads` a CTA, `shared_bytes` of dynamic shared memory. The kernel's shared memory
// attribute is set to `max_shared_bytes`, the most any shape takes, so that planning a smaller
// shape does not take shared memory from a plan made before it.
class ClusterLaunch {
 public:
  ClusterLaunch(const void* kernel, uint32_t threads, uint32_t shared_bytes,
                uint32_t max_shared_bytes)
      : kernel_(kernel) {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(max_shared_bytes)));
    cluster_.id = cudaLaunchAttributeClusterDimension;
    cluster_.val.clusterDim.x = kMulticast;
    cluster_.val.clusterDim.y = 1;
    cluster_.val.clusterDim.z = 1;
    launch_.gridDim = dim3(kSmCount);
    launch_.blockDim = dim3(threads);
    launch_.dynamicSmemBytes = shared_bytes;
    launch_.numAttrs = 1;
  }

  // `values`: a pointer to each of the kernel's parameters, in their order.
  void operator()(void** values, cudaStream_t stream) const {
    cudaLaunchAttribute cluster = cluster_;
    cudaLaunchConfig_t launch = launch_;
    launch.stream = stream;
    launch.attrs = &cluster;
    CUDA_CHECK(cudaLaunchKernelExC(&launch, kernel_, values));
  }

 private:
  const void* kernel_;
  cudaLaunchAttribute cluster_{};
  cudaLaunchConfig_t launch_{};
};

}  // namespace gemmscope::deepgemm
