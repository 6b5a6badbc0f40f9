#pragma once
// What the DeepGEMM provider's GEMMs share (kernels/deepgemm/dense_gemm.cu, grouped_gemm.cu):
// DeepGEMM's sm90_fp8_gemm_1d2d_impl kernel template (deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh,
// tested at DeepGEMM commit 54e2261), the configurations we instantiate of it, the shared memory
// each takes, the TMA descriptors over our operands, and the launch (through
// kernels/deepgemm/detail/sm90_launch.h, what every DeepGEMM kernel's launch shares). Included by
// those two .cu files only, which compile for sm_90a alone.
//
// The kernel, as its source reads: persistent, one CTA per SM (the SM count is a template
// argument), a loader warp group (TMA: A's and B's 128-deep k-tiles 128B-swizzled, A's 1x128
// scales) and one or two math warp groups; each k-tile's wgmma is promoted into FP32 accumulators
// with the row's A scale times the tile's B scale, read once a tile from the 128x128 scales; a
// block of 256 rows is computed in two waves of 128, so that its accumulators fit; the BF16 output
// leaves through shared memory with TMA stores; clusters of two CTAs share A's (or B's) k-tiles by
// TMA multicast. Its GemmType says how rows map to weights: Normal (one GEMM) or
// MGroupedContiguous (the rows of every expert one after another, each expert's starting at a
// multiple of the tile's rows, a table giving each row's expert).
//
// Shared memory: the output tile, the stages (A and B k-tiles, A's scales), the weight scales of
// one tile column for all of K (one or two floats a k-block), and the barriers. The stage count
// is a template argument: each configuration takes as many as fit with K up to kMaxK.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>

#include "kernels/deepgemm/detail/sm90_launch.h"
#include "kernels/device_buffer.h"
#include "kernels/grouped_gemm.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/scale_layout.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "DeepGEMM's Hopper kernels are built for sm_90a only (kernels/deepgemm/CMakeLists.txt)"
#endif

namespace gemmscope::deepgemm {

constexpr uint32_t kBlockK = 128;  // one scale block a k-tile (the kernel asserts it)
constexpr int64_t kMaxK = 65536;   // what the instantiations' shared memory budgets for
constexpr uint32_t kMaxStages = 16;

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

// The kernel's arguments but for its launch configuration.
struct KernelArguments {
  float* scale_b;
  int* grouped_layout;  // MGroupedContiguous: each row's expert; null for Normal
  uint32_t m, n, k;
  CUtensorMap a, b, d, scale_a;
};

// What a configuration is, for its label, its order and its run-time compile, and the kernel the
// build instantiated of it (N and K runtime values); what follows from its tile is derived by the
// functions its instantiation was compiled with.
struct Configuration {
  uint32_t block_m, block_n;
  bool multicast_on_a;
  deep_gemm::GemmType gemm_type;
  const void* kernel;  // for cudaFuncSetAttribute and cudaLaunchKernelExC

  uint32_t stages() const { return stages_for(block_m, block_n); }
  uint32_t math_threads() const { return math_threads_for(block_m); }
  // Bytes; the output's TMA box is swizzle_d() / 2 columns wide (all of the tile's if 0).
  uint32_t swizzle_d() const { return swizzle_for(block_n * 2); }
};

template <uint32_t kBlockM, uint32_t kBlockN, bool kMulticastOnA, deep_gemm::GemmType kGemmType>
struct Instantiation {
  static constexpr uint32_t kStages = stages_for(kBlockM, kBlockN);
  static constexpr uint32_t kMathThreads = math_threads_for(kBlockM);
  static constexpr uint32_t kSwizzleD = swizzle_for(kBlockN * 2);
  static_assert(kStages >= 3, "fewer than 3 stages cannot hide TMA's latency");

  // Shapes and the group count are runtime values (0 and 1): no kernel per model. (Its template
  // arguments are spelled again, with a case's N and K, by jit_instantiation: keep them in step.)
  static constexpr auto kernel = &deep_gemm::sm90_fp8_gemm_1d2d_impl<
      cute::UMMA::Major::K, 0, 0, 0, 1, kBlockM, kBlockN, kBlockK, 128, 128, kSwizzleD, kStages,
      kLoaderThreads, kMathThreads, kMulticast, kMulticastOnA, kSmCount, kGemmType,
      cutlass::bfloat16_t, deep_gemm::epilogue::transform::EpilogueIdentity>;

  static Configuration describe() {
    return {kBlockM, kBlockN, kMulticastOnA, kGemmType, reinterpret_cast<const void*>(kernel)};
  }
};

// The header that declares the kernel template, for compile_cubins
// (kernels/deepgemm/detail/jit_kernel.h).
inline constexpr const char* kKernelHeader = "deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh";

// The C++ name of `config`'s kernel with N and K compiled in, as compile_cubins takes it: its
// Instantiation's template arguments but for the shape.
inline std::string jit_instantiation(const Configuration& config, int64_t n, int64_t k) {
  if (config.gemm_type != deep_gemm::GemmType::MGroupedContiguous &&
      config.gemm_type != deep_gemm::GemmType::Normal) {
    throw std::logic_error("jit_instantiation: a GemmType no configuration is instantiated with");
  }
  const auto text = [](auto value) { return std::to_string(value); };
  return "deep_gemm::sm90_fp8_gemm_1d2d_impl<cute::UMMA::Major::K, 0, " + text(n) + ", " + text(k) +
         ", 1, " + text(config.block_m) + ", " + text(config.block_n) + ", " + text(kBlockK) +
         ", 128, 128, " + text(config.swizzle_d()) + ", " + text(config.stages()) + ", " +
         text(kLoaderThreads) + ", " + text(config.math_threads()) + ", " + text(kMulticast) +
         ", " + (config.multicast_on_a ? "true" : "false") + ", " + text(kSmCount) +
         ", deep_gemm::GemmType::" +
         (config.gemm_type == deep_gemm::GemmType::MGroupedContiguous ? "MGroupedContiguous"
                                                                      : "Normal") +
         ", cutlass::bfloat16_t, deep_gemm::epilogue::transform::EpilogueIdentity>";
}

// "256x128x128, A shared by 2 CTAs, 3 stages"
inline std::string describe(const Configuration& c) {
  return std::to_string(c.block_m) + "x" + std::to_string(c.block_n) + "x" +
         std::to_string(kBlockK) + ", " + (c.multicast_on_a ? "A" : "B") + " shared by " +
         std::to_string(kMulticast) + " CTAs, " + std::to_string(c.stages()) + " stages";
}

// The kernel's four descriptors over our operands: A [a_rows, k] and B [b_rows, k] E4M3 K-major,
// D [a_rows, n] BF16, A's 1x128 scales MN-major [ceil(k/128)][scale_a_stride] (our VEC128_32F
// with scale_a_stride = roundup(a_rows, 4), or stacked).
struct OperandMaps {
  CUtensorMap a, b, d, scale_a;
};

inline OperandMaps operand_maps(const char* who, const Configuration& config, const void* a,
                                int64_t a_rows, const void* b, int64_t b_rows, void* d, int64_t n,
                                int64_t k, const float* scale_a, int64_t scale_a_stride) {
  const uint64_t k_blocks = static_cast<uint64_t>(ceil_div(k, kFp8ScaleBlock));
  const uint32_t swizzle_d = config.swizzle_d();
  return {
      tensor_map(who, CU_TENSOR_MAP_DATA_TYPE_UINT8, a, k, a_rows, k, kBlockK, config.block_m, 128),
      tensor_map(who, CU_TENSOR_MAP_DATA_TYPE_UINT8, b, k, b_rows, k, kBlockK, config.block_n, 128),
      tensor_map(who, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, d, n, a_rows, uint64_t{2} * n,
                 swizzle_d == 0 ? config.block_n : swizzle_d / 2, config.block_m, swizzle_d),
      tensor_map(who, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, scale_a, scale_a_stride, k_blocks,
                 scale_a_stride * 4, config.block_m, 1, 0),
  };
}

// The weights' 128x128 scales as the kernel reads them: `rows` rows of ceil(k/128) floats, one
// after another. Ours (BLK128x128_32F) pad each row to a multiple of 4 slots; where that differs,
// a plan keeps an unpadded copy, which copy() refreshes inside the timed run (one 2D memcpy, so
// that its cost counts and new scales are read each run): a few KB for a dense weight, G times
// that for an m-grouped GEMM's experts (48 KiB for Qwen3-30B-A3B's 128, about 0.5 MiB for
// gpt-oss-120b's).
class WeightScales {
 public:
  WeightScales(const float* padded, int64_t rows, int64_t k)
      : k_blocks_(static_cast<size_t>(ceil_div(k, kFp8ScaleBlock))),
        padded_row_(static_cast<size_t>(round_up(ceil_div(k, kFp8ScaleBlock), kScaleRowAlignment))),
        rows_(static_cast<size_t>(rows)),
        padded_(padded),
        read_(const_cast<float*>(padded)) {
    if (padded_row_ != k_blocks_) {
      unpadded_ = DeviceBuffer<float>(rows_ * k_blocks_);
      read_ = unpadded_.get();
    }
  }

  float* read() const { return read_; }  // what the kernel reads
  bool copied() const { return read_ != padded_; }
  void copy(cudaStream_t stream) const {
    if (copied()) {
      CUDA_CHECK(cudaMemcpy2DAsync(read_, k_blocks_ * sizeof(float), padded_,
                                   padded_row_ * sizeof(float), k_blocks_ * sizeof(float), rows_,
                                   cudaMemcpyDeviceToDevice, stream));
    }
  }

 private:
  size_t k_blocks_, padded_row_, rows_;
  const float* padded_;
  float* read_;
  DeviceBuffer<float> unpadded_;
};

// What both GEMMs refuse of a 1D2D problem's K (after detail::check_fp8_block_gemm): Wgrad's
// 1x128 x 1x128 scales, and K past what the instantiations' shared memory holds weight scales for.
inline void require_1d2d(const char* who, bool block_1d2d, int64_t k) {
  if (!block_1d2d) {
    throw Unsupported(std::string(who) +
                      ": runs 1x128 x 128x128 block scales (Fprop, Dgrad) only; DeepGEMM's Hopper "
                      "kernel for 1x128 x 1x128 (Wgrad) writes FP32, where FP8Block's Wgrad writes "
                      "BF16");
  }
  if (k > kMaxK) {
    throw Unsupported(std::string(who) + ": K = " + std::to_string(k) + " past " +
                      std::to_string(kMaxK) +
                      ", what its instantiations' shared memory holds weight scales for");
  }
}

// `configurations` best first by modelled_time (kernels/deepgemm/detail/sm90_launch.h).
inline std::vector<const Configuration*> by_modelled_time(
    const std::vector<Configuration>& configurations, int64_t m, int64_t n) {
  return by_modelled_time(configurations, m, n, [](const Configuration& c) {
    return std::pair<uint32_t, uint32_t>{c.block_m, c.block_n};
  });
}

// A configuration's launch of `kernel` (the build's instantiation of it, or one compiled at run
// time with N and K in) but for its stream: its shared memory for K, its attribute for kMaxK.
class Launch {
 public:
  Launch(const Configuration& config, const void* kernel, int64_t k)
      : launch_(kernel, kLoaderThreads + config.math_threads(),
                shared_bytes(config.block_m, config.block_n, config.stages(), k),
                shared_bytes(config.block_m, config.block_n, config.stages(), kMaxK)) {}

  void operator()(KernelArguments arguments, cudaStream_t stream) const {
    // In the order of sm90_fp8_gemm_1d2d_impl's parameters, each pointing at its value.
    void* values[] = {&arguments.scale_b, &arguments.grouped_layout,
                      &arguments.m,       &arguments.n,
                      &arguments.k,       &arguments.a,
                      &arguments.b,       &arguments.d,
                      &arguments.scale_a};
    launch_(values, stream);
  }

 private:
  ClusterLaunch launch_;
};

// Where a GEMM's operands are, in the kernel's terms (operand_maps, WeightScales).
struct Operands {
  const void* a;
  int64_t a_rows;  // m
  const void* b;
  int64_t b_rows;  // n, or every expert's n
  void* d;
  int64_t n, k;
  const float* scale_a;
  int64_t scale_a_stride;
  const float* scale_b;  // 128x128, padded BLK128x128_32F rows
  int64_t scale_b_rows;  // ceil(b_rows / 128)
};

// One configuration planned on one problem: the descriptors, the weight scales' copy where one is
// needed, and the launch of `kernel` (config.kernel, or its run-time compile for the problem's N
// and K); `row_expert` (MGroupedContiguous: each row's expert, in device memory, shared by the
// problem's configurations) is null for a dense GEMM.
class Sm90Fp8Gemm final : public GroupedGemm {
 public:
  Sm90Fp8Gemm(const char* who, const Configuration& config, const void* kernel, const Operands& x,
              std::shared_ptr<DeviceBuffer<int>> row_expert, std::string algorithm)
      : launch_(config, kernel, x.k),
        algorithm_(std::move(algorithm)),
        row_expert_(std::move(row_expert)),
        m_(static_cast<uint32_t>(x.a_rows)),
        n_(static_cast<uint32_t>(x.n)),
        k_(static_cast<uint32_t>(x.k)),
        maps_(operand_maps(who, config, x.a, x.a_rows, x.b, x.b_rows, x.d, x.n, x.k, x.scale_a,
                           x.scale_a_stride)),
        scale_b_(x.scale_b, x.scale_b_rows, x.k) {}

  void run(cudaStream_t stream) const override {
    scale_b_.copy(stream);
    launch_({scale_b_.read(), row_expert_ ? row_expert_->get() : nullptr, m_, n_, k_, maps_.a,
             maps_.b, maps_.d, maps_.scale_a},
            stream);
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return scale_b_.copied() ? 2 : 1; }

 private:
  Launch launch_;
  std::string algorithm_;
  std::shared_ptr<DeviceBuffer<int>> row_expert_;
  uint32_t m_, n_, k_;
  OperandMaps maps_;
  WeightScales scale_b_;
};

}  // namespace gemmscope::deepgemm
