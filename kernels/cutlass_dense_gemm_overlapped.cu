// A dense FP8Block GEMM of our own on CuTe's Hopper atoms (wgmma, TMA, mbarriers), the
// "overlapped" configuration of the `cutlass` provider (kernels/cutlass_dense_gemm.cpp ranks it
// with CUTLASS's own): 1x128 x 128x128 block scales (1D2D: Fprop, Dgrad), tile 128x128x128.
//
// Why our own mainloop: CUTLASS 4.2's blockwise mainloop waits for each k-tile's wgmma to finish
// and only then promotes it (FP32 multiply-add of the partial sums into the accumulator, scaled
// by the k-block's scales); both warp groups of a cooperative tile do so at the same moment, so
// the tensor cores idle through every promotion (a 64x128 warp-group tile: 64 FFMA a thread a
// k-tile against 256 tensor-core cycles of wgmma). Here each warp group keeps two partial
// accumulators: it issues k-tile t's wgmma into one, waits only for k-tile t-1's (in the other)
// and promotes that while t's runs. Three 64-float sets (accumulator and two partials) are 192
// registers a thread, which fits the 232 a consumer warp group gets; a wider tile would not.
//
// The CTA: warp group 0 loads (one thread issues TMA: A's and B's 128x128 tiles, 128B-swizzled as
// wgmma reads them, and A's 128 scales of the k-block), warp groups 1 and 2 each multiply 64 rows
// of the tile. Persistent: one CTA per SM walks the tiles kRasterRows tile rows at a time (so that
// a wave shares operand tiles through L2), and the loader runs ahead into the next tile while the
// consumers store the last one. The output is stored from registers as BF16 pairs.

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/cuda_host_adapter.hpp>

#include "kernels/detail/cutlass_dense_gemm_configurations.h"
#include "kernels/detail/sm90_device.h"
#include "quant/cuda_check.h"
#include "quant/fp8_scale_layout.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the overlapped FP8Block GEMM is built for sm_90a only (kernels/CMakeLists.txt)"
#endif

namespace gemmscope::cutlass_dense {
namespace {

constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 128;                 // one scale block a k-tile, and 128 B: the swizzle
constexpr int kStages = 6;                  // 6 x 32.5 KB of operands, the most that fits
constexpr int kConsumerGroups = 2;          // warp groups, 64 rows of the tile each
constexpr int kGroupRows = kTileM / kConsumerGroups;
constexpr int kThreads = 128 * (1 + kConsumerGroups);
constexpr int kRasterRows = 8;              // tile rows a wave sweeps together
constexpr int kWgmmaK = 32;                 // FP8 wgmma depth
constexpr int kOperandTileBytes = kTileM * kTileK;  // E4M3: one byte an element
constexpr uint32_t kStageBytes = 2 * kOperandTileBytes + kTileM * sizeof(float);
constexpr uint32_t kLoaderRegisters = 40;
constexpr uint32_t kConsumerRegisters = 232;

using Wgmma = cute::SM90::GMMA::MMA_64x128x32_F32E4M3E4M3_SS_TN<>;
constexpr int kFragment = 64;  // FP32 accumulators a thread holds of a 64x128 warp-group tile

struct SharedStorage {
  alignas(1024) uint8_t a[kStages][kOperandTileBytes];
  alignas(1024) uint8_t b[kStages][kOperandTileBytes];
  alignas(16) float scale_a[kStages][kTileM];
  cutlass::arch::ClusterTransactionBarrier full[kStages];  // loaded: TMA's bytes arrived
  cutlass::arch::ClusterBarrier empty[kStages];            // consumed: every consumer warp done
};
// Dynamic shared memory is only 16-byte aligned: one spare KiB to align the swizzled tiles.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;

struct Params {
  int m, n, k_blocks;
  int tiles_m, tiles_n;
  const float* scale_b;  // BLK128x128_32F [ceil(n/128)][scale_b_stride]
  int scale_b_stride;
  __nv_bfloat16* d;      // [m, n] row-major
};

// The tile a persistent CTA takes `tile`-th: kRasterRows tile rows at a time, down the rows
// first, then across.
__device__ __forceinline__ void tile_position(int tile, const Params& p, int& tile_m,
                                              int& tile_n) {
  const int per_band = kRasterRows * p.tiles_n;
  const int first_row = tile / per_band * kRasterRows;
  const int rows = min(p.tiles_m - first_row, kRasterRows);
  const int in_band = tile % per_band;
  tile_m = first_row + in_band % rows;
  tile_n = in_band / rows;
}

// wgmma's view of a 128B-swizzled K-major tile in shared memory (as TMA wrote it): 8-row groups
// 1024 bytes apart; the leading offset is unused with swizzling.
__device__ __forceinline__ uint64_t smem_descriptor(const void* tile) {
  cute::GmmaDescriptor desc;
  desc.bitfield.start_address_ = static_cast<uint16_t>(cute::cast_smem_ptr_to_uint(tile) >> 4);
  desc.bitfield.leading_byte_offset_ = 1;
  desc.bitfield.stride_byte_offset_ = 1024 >> 4;
  desc.bitfield.base_offset_ = 0;
  desc.bitfield.layout_type_ = static_cast<uint8_t>(cute::SM90::GMMA::LayoutType::B128);
  return desc.desc_;
}

template <size_t... I>
__device__ __forceinline__ void wgmma_64x128x32(uint64_t desc_a, uint64_t desc_b,
                                                float (&d)[kFragment], bool accumulate,
                                                std::index_sequence<I...>) {
  Wgmma::fma(desc_a, desc_b, d[I]...,
             accumulate ? cute::SM90::GMMA::ScaleOut::One : cute::SM90::GMMA::ScaleOut::Zero);
}

template <class Array>
__device__ __forceinline__ void fence_fragment(Array& fragment) {
#pragma unroll
  for (int i = 0; i < kFragment; ++i)
    cute::warpgroup_fence_operand(fragment[i]);
}

// One k-tile's wgmma (four 32-deep steps) into a fresh partial accumulator, issued, not waited.
__device__ __forceinline__ void issue_k_tile(float (&partial)[kFragment], const uint8_t* a,
                                             const uint8_t* b) {
  const uint64_t desc_a = smem_descriptor(a);
  const uint64_t desc_b = smem_descriptor(b);
  fence_fragment(partial);
  cute::warpgroup_arrive();
#pragma unroll
  for (int step = 0; step < kTileK / kWgmmaK; ++step) {
    // The start address advances 32 bytes a step inside the 128-byte swizzled rows (in 16-byte
    // units); the hardware applies the swizzle to the resulting address.
    wgmma_64x128x32(desc_a + step * (kWgmmaK >> 4), desc_b + step * (kWgmmaK >> 4), partial,
                    step > 0, std::make_index_sequence<kFragment>{});
  }
  cute::warpgroup_commit_batch();
}

// accumulator += partial x scale, a thread's rows r and r + 8 with their own scales (the
// wgmma fragment: four floats an 8-column slice, rows r, r, r + 8, r + 8).
__device__ __forceinline__ void promote(float (&accumulator)[kFragment],
                                        const float (&partial)[kFragment], float scale_upper,
                                        float scale_lower) {
#pragma unroll
  for (int i = 0; i < kFragment; i += 4) {
    accumulator[i] = fmaf(partial[i], scale_upper, accumulator[i]);
    accumulator[i + 1] = fmaf(partial[i + 1], scale_upper, accumulator[i + 1]);
    accumulator[i + 2] = fmaf(partial[i + 2], scale_lower, accumulator[i + 2]);
    accumulator[i + 3] = fmaf(partial[i + 3], scale_lower, accumulator[i + 3]);
  }
}

// A consumer warp group's k-tile scales: A's for its thread's two rows, times B's for the tile.
struct KTileScales {
  float upper, lower;
};

__global__ void __launch_bounds__(kThreads, 1)
    overlapped_block_gemm(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b,
                          const __grid_constant__ CUtensorMap map_scale_a, const Params p) {
  extern __shared__ uint8_t shared_raw[];
  auto& shared = *reinterpret_cast<SharedStorage*>(
      (reinterpret_cast<uintptr_t>(shared_raw) + 1023) & ~uintptr_t{1023});
  const int warp_group = threadIdx.x / 128;
  const int tiles = p.tiles_m * p.tiles_n;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      shared.full[s].init(1);
      shared.empty[s].init(kConsumerGroups * 4);  // one arrival a consumer warp
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kLoaderRegisters>();
    if (threadIdx.x != 0)
      return;
    constexpr uint64_t kCacheHint = static_cast<uint64_t>(cute::TMA::CacheHintSm90::EVICT_NORMAL);
    int stage = 0;
    uint32_t phase = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      int tile_m, tile_n;
      tile_position(tile, p, tile_m, tile_n);
      for (int kb = 0; kb < p.k_blocks; ++kb) {
        shared.empty[stage].wait(phase ^ 1);  // a fresh barrier passes parity 1 at once
        auto* full = reinterpret_cast<uint64_t*>(&shared.full[stage]);
        shared.full[stage].arrive_and_expect_tx(kStageBytes);
        cute::SM90_TMA_LOAD_2D::copy(&map_a, full, kCacheHint, shared.a[stage], kb * kTileK,
                                     tile_m * kTileM);
        cute::SM90_TMA_LOAD_2D::copy(&map_b, full, kCacheHint, shared.b[stage], kb * kTileK,
                                     tile_n * kTileN);
        cute::SM90_TMA_LOAD_2D::copy(&map_scale_a, full, kCacheHint, shared.scale_a[stage],
                                     tile_m * kTileM, kb);
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    return;
  }

  cutlass::arch::warpgroup_reg_alloc<kConsumerRegisters>();
  const int group = warp_group - 1;
  const int warp = threadIdx.x / 32 % 4;
  const int lane = threadIdx.x % 32;
  const int row_in_tile = group * kGroupRows + warp * 16 + lane / 4;  // and row_in_tile + 8
  int stage = 0;
  uint32_t phase = 0;
  float accumulator[kFragment];
  float partial_even[kFragment];
  float partial_odd[kFragment];

  // Waits for the next stage's operands, issues its wgmma into `partial` and reads its scales
  // (A's from shared memory, B's single one from global: one broadcast load).
  auto start_k_tile = [&](float (&partial)[kFragment], int kb, int tile_n) {
    shared.full[stage].wait(phase);
    issue_k_tile(partial, shared.a[stage] + group * kGroupRows * kTileK, shared.b[stage]);
    const float scale_b = __ldg(p.scale_b + static_cast<int64_t>(tile_n) * p.scale_b_stride + kb);
    return KTileScales{shared.scale_a[stage][row_in_tile] * scale_b,
                       shared.scale_a[stage][row_in_tile + 8] * scale_b};
  };
  // After `waits_left` wgmma batches remain in flight: frees the oldest stage and promotes it.
  auto finish_k_tile = [&](float (&partial)[kFragment], KTileScales scales, int finished_stage) {
    fence_fragment(partial);
    if (lane == 0)
      shared.empty[finished_stage].arrive();
    promote(accumulator, partial, scales.upper, scales.lower);
  };
  auto advance = [&] {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  };

  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int tile_m, tile_n;
    tile_position(tile, p, tile_m, tile_n);
#pragma unroll
    for (int i = 0; i < kFragment; ++i)
      accumulator[i] = 0.0f;

    // k-tiles alternate between the two partials: even ones in partial_even, odd in partial_odd.
    KTileScales even_scales = start_k_tile(partial_even, 0, tile_n);
    int even_stage = stage;
    advance();
    int kb = 1;
    for (; kb + 1 < p.k_blocks; kb += 2) {
      const KTileScales odd_scales = start_k_tile(partial_odd, kb, tile_n);
      const int odd_stage = stage;
      advance();
      cute::warpgroup_wait<1>();
      finish_k_tile(partial_even, even_scales, even_stage);

      even_scales = start_k_tile(partial_even, kb + 1, tile_n);
      even_stage = stage;
      advance();
      cute::warpgroup_wait<1>();
      finish_k_tile(partial_odd, odd_scales, odd_stage);
    }
    if (kb < p.k_blocks) {  // an even number of k-tiles: the last is odd
      const KTileScales odd_scales = start_k_tile(partial_odd, kb, tile_n);
      const int odd_stage = stage;
      advance();
      cute::warpgroup_wait<1>();
      finish_k_tile(partial_even, even_scales, even_stage);
      cute::warpgroup_wait<0>();
      finish_k_tile(partial_odd, odd_scales, odd_stage);
    } else {
      cute::warpgroup_wait<0>();
      finish_k_tile(partial_even, even_scales, even_stage);
    }

    // Store: the fragment's four floats an 8-column slice are rows r, r + 8 by two columns.
    const int row = tile_m * kTileM + row_in_tile;
    const int column0 = tile_n * kTileN + 2 * (lane % 4);
#pragma unroll
    for (int slice = 0; slice < kTileN / 8; ++slice) {
      const int column = column0 + 8 * slice;
      if (column >= p.n)
        continue;
      const float* pair = accumulator + 4 * slice;
      if (row < p.m) {
        *reinterpret_cast<__nv_bfloat162*>(p.d + static_cast<int64_t>(row) * p.n + column) =
            __floats2bfloat162_rn(pair[0], pair[1]);
      }
      if (row + 8 < p.m) {
        *reinterpret_cast<__nv_bfloat162*>(p.d + static_cast<int64_t>(row + 8) * p.n + column) =
            __floats2bfloat162_rn(pair[2], pair[3]);
      }
    }
  }
}

// A 2D TMA map of a row-major [rows, columns] tensor, boxes of box_rows x box_columns.
CUtensorMap tensor_map(const void* base, CUtensorMapDataType type, uint64_t rows, uint64_t columns, uint64_t row_bytes, uint32_t box_rows,
                       uint32_t box_columns, CUtensorMapSwizzle swizzle) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {columns, rows};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_columns, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status = cutlass::call_cuTensorMapEncodeTiled(
      &map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    throw std::runtime_error("overlapped FP8Block GEMM: cuTensorMapEncodeTiled failed (" +
                             std::to_string(static_cast<int>(status)) + ") for a " +
                             std::to_string(rows) + "x" + std::to_string(columns) + " tensor");
  }
  return map;
}

class OverlappedBlockGemm final : public GroupedGemm {
 public:
  OverlappedBlockGemm(const Problem& problem, std::string algorithm)
      : algorithm_(std::move(algorithm)) {
    const int k_blocks = static_cast<int>(ceil_div(problem.k, kTileK));
    const uint64_t padded_m = static_cast<uint64_t>(round_up(problem.m, kScaleRowAlignment));
    map_a_ = tensor_map(problem.a, CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.m, problem.k,
                        problem.k, kTileM, kTileK, CU_TENSOR_MAP_SWIZZLE_128B);
    map_b_ = tensor_map(problem.b, CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.n, problem.k,
                        problem.k, kTileN, kTileK, CU_TENSOR_MAP_SWIZZLE_128B);
    // VEC128_32F: [k_blocks][padded m], a tile's 128 rows of one k-block are one box.
    map_scale_a_ = tensor_map(problem.scale_a, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, k_blocks,
                              padded_m, padded_m * sizeof(float), 1, kTileM,
                              CU_TENSOR_MAP_SWIZZLE_NONE);
    params_.m = problem.m;
    params_.n = problem.n;
    params_.k_blocks = k_blocks;
    params_.tiles_m = static_cast<int>(ceil_div(problem.m, kTileM));
    params_.tiles_n = static_cast<int>(ceil_div(problem.n, kTileN));
    params_.scale_b = problem.scale_b;
    params_.scale_b_stride =
        static_cast<int>(block128_scale_index(1, 0, problem.k) - block128_scale_index(0, 0, problem.k));
    params_.d = static_cast<__nv_bfloat16*>(problem.d);
    const int sm_count = detail::require_sm90("overlapped FP8Block GEMM");
    grid_ = std::min(params_.tiles_m * params_.tiles_n, sm_count);
    CUDA_CHECK(cudaFuncSetAttribute(overlapped_block_gemm,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBytes)));
  }

  void run(cudaStream_t stream) const override {
    overlapped_block_gemm<<<grid_, kThreads, kSharedBytes, stream>>>(map_a_, map_b_,
                                                                     map_scale_a_, params_);
    CUDA_CHECK(cudaGetLastError());
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return 1; }

 private:
  std::string algorithm_;
  CUtensorMap map_a_{}, map_b_{}, map_scale_a_{};
  Params params_{};
  int grid_ = 0;
};

std::string refusal(const Problem& problem) {
  if (problem.scaling != BlockScaling::k1d2d)
    return "built for 1x128 x 128x128 block scales only";
  return "";
}

std::unique_ptr<GroupedGemm> plan(const Problem& problem, int /*max_swizzle*/,
                                  const std::string& algorithm, cudaStream_t /*stream*/) {
  return std::make_unique<OverlappedBlockGemm>(problem, algorithm);
}

}  // namespace

Configuration config_1d2d_overlapped() {
  Configuration c{};
  c.scaling = BlockScaling::k1d2d;
  c.schedule = Schedule::kOverlapped;
  c.scheduler = TileScheduler::kPersistent;
  c.tile_m = kTileM;
  c.tile_n = kTileN;
  c.tile_k = kTileK;
  c.cluster_m = 1;
  c.cluster_n = 1;
  c.refusal = &refusal;
  c.plan = &plan;
  return c;
}

}  // namespace gemmscope::cutlass_dense
