// make_deepgemm_dense_gemms (kernels/deepgemm/dense_gemm.h): DeepGEMM's sm90_fp8_gemm_1d2d_impl
// kernel template (deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh, tested at DeepGEMM commit 54e2261),
// instantiated in a few configurations and launched on our operands.
//
// The kernel, as its source reads: persistent, one CTA per SM (the SM count is a template
// argument), a loader warp group (TMA: A's and B's 128-deep k-tiles 128B-swizzled, A's 1x128
// scales) and two math warp groups; each k-tile's wgmma is promoted into FP32 accumulators with
// the row's A scale times the tile's B scale, read once a tile from our 128x128 scales; a block
// of 256 rows is computed in two waves of 128, so that its accumulators fit; the BF16 output
// leaves through shared memory with TMA stores; clusters of two CTAs share A's (or B's) k-tiles
// by TMA multicast.
//
// Configurations (tile M x N, which operand two CTAs share): DeepGEMM's own heuristic picks
// 256x128 for nearly every large Fprop and Dgrad of te-tutorial and Llama 3 70B (TP 8), and
// ranks 256x112, 128x192 and 128x160 next. Timed side by side on an H100 in --provider=auto's
// trial (docs/results.md), the kept ones were
//
//   256x128, A shared   7 of the 16 Fprop and Dgrad cases of both models
//   128x192, B shared   7 (six of te-tutorial's eight): a tile N that crosses weight-scale
//                       blocks, two B scales a tile
//   256x128, B shared   1, and within 2.2% of A shared in every case
//   128x160, B shared   0, but within 0.6% of the kept CUTLASS GEMM on N = 1280 (8 tiles)
//
// and 256x112 never: 18-56% behind the best, so it is not built.
//
// Order (best first), a first guess the caller's trial then settles: waves x tile area, waves =
// ceil(tiles / SMs), as kernels/cutlass/dense_gemm.cpp orders CUTLASS's; ties keep the list order.
//
// Shared memory: the output tile, the stages (A and B k-tiles, A's scales), the weight scales of
// one tile column for all of K (one or two floats a k-block), and the barriers. The stage count
// is a template argument: each configuration takes as many as fit with K up to kMaxK.

#include "kernels/deepgemm/dense_gemm.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>

#include "kernels/detail/fp8_block_gemm.h"
#include "kernels/detail/sm90_device.h"
#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/scale_layout.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "DeepGEMM's Hopper kernels are built for sm_90a only (kernels/deepgemm/CMakeLists.txt)"
#endif

namespace gemmscope {
namespace {

constexpr const char* kName = "DeepGEMM dense GEMM";
constexpr uint32_t kBlockK = 128;   // one scale block a k-tile (the kernel asserts it)
constexpr uint32_t kSmCount = 132;  // H100 SXM and H200: the persistent grid, a template argument
constexpr int64_t kMaxK = 65536;    // what the instantiations' shared memory budgets for
constexpr uint32_t kLoaderThreads = 128;
constexpr uint32_t kMulticast = 2;               // CTAs of a cluster
constexpr uint32_t kSharedMemoryLimit = 232448;  // sm_90's 227 KB a block
constexpr uint32_t kMaxStages = 16;

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

// The kernel's shared memory for a tile and K (its own layout, in its order).
constexpr uint32_t shared_bytes(uint32_t block_m, uint32_t block_n, uint32_t stages, int64_t k) {
  const uint32_t k_blocks = static_cast<uint32_t>((k + kBlockK - 1) / kBlockK);
  const uint32_t scales_b_per_k_block = kBlockK % block_n == 0 ? 1 : 2;
  return align_up(block_m * block_n * 2, 1024) +             // BF16 output tile
         stages * (block_m * kBlockK + block_n * kBlockK) +  // E4M3 k-tiles
         stages * align_up(block_m * 4, 128) +               // A's scales
         align_up(k_blocks * scales_b_per_k_block * 4, 8) +  // B's scales, all of K
         2 * stages * 8;                                     // full and empty barriers
}

constexpr uint32_t stages_for(uint32_t block_m, uint32_t block_n) {
  uint32_t stages = kMaxStages;
  while (stages > 1 && shared_bytes(block_m, block_n, stages, kMaxK) > kSharedMemoryLimit)
    --stages;
  return stages;
}

// One math warp group for tiles of 64 rows, two (64 rows each a wave) otherwise.
constexpr uint32_t math_threads_for(uint32_t block_m) {
  return block_m <= 64 ? 128 : 256;
}

// What a configuration is, for its label and order, and how to launch it; what follows from its
// tile is derived by the functions its instantiation was compiled with.
struct Configuration {
  uint32_t block_m, block_n;
  bool multicast_on_a;
  const void* kernel;  // for cudaFuncSetAttribute and cudaLaunchKernelEx
  void (*launch)(const cudaLaunchConfig_t& config, float* scale_b, uint32_t m, uint32_t n,
                 uint32_t k, const CUtensorMap& a, const CUtensorMap& b, const CUtensorMap& d,
                 const CUtensorMap& scale_a);

  uint32_t stages() const { return stages_for(block_m, block_n); }
  uint32_t math_threads() const { return math_threads_for(block_m); }
  // Bytes; the output's TMA box is swizzle_d() / 2 columns wide (all of the tile's if 0).
  uint32_t swizzle_d() const { return swizzle_for(block_n * 2); }
};

template <uint32_t kBlockM, uint32_t kBlockN, bool kMulticastOnA>
struct Instantiation {
  static constexpr uint32_t kStages = stages_for(kBlockM, kBlockN);
  static constexpr uint32_t kMathThreads = math_threads_for(kBlockM);
  static constexpr uint32_t kSwizzleD = swizzle_for(kBlockN * 2);
  static_assert(kStages >= 3, "fewer than 3 stages cannot hide TMA's latency");

  static constexpr auto kernel =
      &deep_gemm::sm90_fp8_gemm_1d2d_impl<cute::UMMA::Major::K, 0, 0, 0, 1, kBlockM, kBlockN,
                                          kBlockK, 128, 128, kSwizzleD, kStages, kLoaderThreads,
                                          kMathThreads, kMulticast, kMulticastOnA, kSmCount,
                                          deep_gemm::GemmType::Normal, cutlass::bfloat16_t,
                                          deep_gemm::epilogue::transform::EpilogueIdentity>;

  static void launch(const cudaLaunchConfig_t& config, float* scale_b, uint32_t m, uint32_t n,
                     uint32_t k, const CUtensorMap& a, const CUtensorMap& b, const CUtensorMap& d,
                     const CUtensorMap& scale_a) {
    CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, scale_b, static_cast<int*>(nullptr), m, n, k, a,
                                  b, d, scale_a));
  }

  static Configuration describe() {
    return {kBlockM, kBlockN, kMulticastOnA, reinterpret_cast<const void*>(kernel), &launch};
  }
};

const std::vector<Configuration>& configurations() {
  static const std::vector<Configuration> all = {
      Instantiation<256, 128, true>::describe(),
      Instantiation<256, 128, false>::describe(),
      Instantiation<128, 192, false>::describe(),
      Instantiation<128, 160, false>::describe(),
  };
  return all;
}

// "256x128x128, A shared by 2 CTAs, 3 stages"
std::string describe(const Configuration& c) {
  return std::to_string(c.block_m) + "x" + std::to_string(c.block_n) + "x" +
         std::to_string(kBlockK) + ", " + (c.multicast_on_a ? "A" : "B") + " shared by " +
         std::to_string(kMulticast) + " CTAs, " + std::to_string(c.stages()) + " stages";
}

double modelled_time(const Configuration& c, int64_t m, int64_t n) {
  const int64_t tiles = ceil_div(m, c.block_m) * ceil_div(n, c.block_n);
  return static_cast<double>(ceil_div(tiles, kSmCount)) * c.block_m * c.block_n;
}

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw Unsupported(std::string(kName) + ": the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encode;
}

// A 2D tensor map over [outer, inner] elements (`row_bytes` apart), boxes of [box_outer,
// box_inner], as DeepGEMM's kernel reads or writes them.
CUtensorMap tensor_map(CUtensorMapDataType type, const void* base, uint64_t inner, uint64_t outer,
                       uint64_t row_bytes, uint32_t box_inner, uint32_t box_outer,
                       uint32_t swizzle) {
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
      encode_tiled()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, mode, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(kName) + ": cuTensorMapEncodeTiled failed (CUresult " +
                             std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}

class DeepGemmDenseGemm final : public GroupedGemm {
 public:
  DeepGemmDenseGemm(const detail::Fp8BlockGemm& p, const Configuration& config,
                    std::string algorithm)
      : config_(config),
        algorithm_(std::move(algorithm)),
        m_(static_cast<uint32_t>(p.m)),
        n_(static_cast<uint32_t>(p.n)),
        k_(static_cast<uint32_t>(p.k)) {
    const uint64_t padded_m = static_cast<uint64_t>(round_up(p.m, kScaleRowAlignment));
    const uint32_t k_blocks = static_cast<uint32_t>(ceil_div(p.k, kFp8ScaleBlock));
    a_ =
        tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, p.a, p.k, p.m, p.k, kBlockK, config.block_m, 128);
    b_ =
        tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, p.b, p.k, p.n, p.k, kBlockK, config.block_n, 128);
    const uint32_t swizzle_d = config.swizzle_d();
    d_ = tensor_map(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, p.d, p.n, p.m, uint64_t{2} * p.n,
                    swizzle_d == 0 ? config.block_n : swizzle_d / 2, config.block_m, swizzle_d);
    // Our VEC128_32F scales are DeepGEMM's MN-major, TMA-aligned ones: [k_blocks][padded m].
    scale_a_ = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, p.scale_a, padded_m, k_blocks,
                          padded_m * 4, config.block_m, 1, 0);
    // Our BLK128x128_32F rows hold round_up(k_blocks, 4) slots; DeepGEMM reads k_blocks a row.
    scale_b_ = const_cast<float*>(p.scale_b);
    scale_b_row_ = static_cast<size_t>(round_up(k_blocks, kScaleRowAlignment));
    k_blocks_ = k_blocks;
    n_blocks_ = static_cast<size_t>(ceil_div(p.n, kFp8ScaleBlock));
    if (scale_b_row_ != k_blocks) {
      unpadded_scale_b_ = DeviceBuffer<float>(n_blocks_ * k_blocks);
      scale_b_ = unpadded_scale_b_.get();
      padded_scale_b_ = p.scale_b;
    }
    // The attribute is the kernel's, shared by every plan of it: the most any K takes, so that
    // planning a shorter K does not take shared memory from a plan made before it.
    const uint32_t stages = config.stages();
    CUDA_CHECK(cudaFuncSetAttribute(
        config.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(shared_bytes(config.block_m, config.block_n, stages, kMaxK))));
    // The launch, but for its stream and the attribute's address (set by run()).
    cluster_.id = cudaLaunchAttributeClusterDimension;
    cluster_.val.clusterDim.x = kMulticast;
    cluster_.val.clusterDim.y = 1;
    cluster_.val.clusterDim.z = 1;
    launch_.gridDim = dim3(kSmCount);
    launch_.blockDim = dim3(kLoaderThreads + config.math_threads());
    launch_.dynamicSmemBytes = shared_bytes(config.block_m, config.block_n, stages, p.k);
    launch_.numAttrs = 1;
  }

  void run(cudaStream_t stream) const override {
    if (padded_scale_b_ != nullptr) {
      CUDA_CHECK(cudaMemcpy2DAsync(scale_b_, k_blocks_ * sizeof(float), padded_scale_b_,
                                   scale_b_row_ * sizeof(float), k_blocks_ * sizeof(float),
                                   n_blocks_, cudaMemcpyDeviceToDevice, stream));
    }
    cudaLaunchAttribute cluster = cluster_;
    cudaLaunchConfig_t launch = launch_;
    launch.stream = stream;
    launch.attrs = &cluster;
    config_.launch(launch, scale_b_, m_, n_, k_, a_, b_, d_, scale_a_);
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return padded_scale_b_ != nullptr ? 2 : 1; }

 private:
  Configuration config_;
  std::string algorithm_;
  uint32_t m_, n_, k_;
  CUtensorMap a_{}, b_{}, d_{}, scale_a_{};
  float* scale_b_ = nullptr;
  const float* padded_scale_b_ = nullptr;  // set when DeepGEMM's copy is needed
  DeviceBuffer<float> unpadded_scale_b_;
  size_t scale_b_row_ = 0, k_blocks_ = 0, n_blocks_ = 0;
  cudaLaunchAttribute cluster_{};
  cudaLaunchConfig_t launch_{};
};

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_dense_gemms(const GemmProblem& problem,
                                                                    cudaStream_t /*stream*/) {
  const detail::Fp8BlockGemm checked = detail::check_fp8_block_gemm(problem, kName);
  const std::string dims = std::string(kName) + ": " + std::to_string(checked.m) + "x" +
                           std::to_string(checked.k) + "x" + std::to_string(checked.n) + ": ";
  if (checked.scaling != detail::BlockScaling::k1d2d) {
    throw Unsupported(std::string(kName) +
                      ": runs 1x128 x 128x128 block scales (Fprop, Dgrad) only; DeepGEMM's Hopper "
                      "kernel for 1x128 x 1x128 (Wgrad) writes FP32, where FP8Block's Wgrad writes "
                      "BF16");
  }
  if (checked.k > kMaxK) {
    throw Unsupported(dims + "K past " + std::to_string(kMaxK) +
                      ", what its instantiations' shared memory holds weight scales for");
  }
  const int sm_count = detail::require_sm90(kName);
  if (sm_count != static_cast<int>(kSmCount)) {
    throw Unsupported(std::string(kName) + ": its persistent kernels are compiled for " +
                      std::to_string(kSmCount) + " SMs (H100 SXM, H200); this GPU has " +
                      std::to_string(sm_count));
  }
  std::vector<const Configuration*> ordered;
  for (const Configuration& config : configurations())
    ordered.push_back(&config);
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) {
    return modelled_time(*a, checked.m, checked.n) < modelled_time(*b, checked.m, checked.n);
  });
  std::vector<std::unique_ptr<GroupedGemm>> gemms;
  for (const Configuration* config : ordered) {
    gemms.push_back(std::make_unique<DeepGemmDenseGemm>(
        checked, *config,
        "DeepGEMM sm90 FP8 1x128 x 128x128 block scales (" + describe(*config) + ")"));
  }
  return gemms;
}

}  // namespace gemmscope
