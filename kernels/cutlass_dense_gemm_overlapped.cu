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

#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cute/arch/copy_sm90_desc.hpp>
#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/arch/mma_sm90_gmma.hpp>
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
constexpr int kTileK = 128;         // one scale block a k-tile, and 128 B: the swizzle's width
constexpr int kScaleBlock = 128;    // the weights' scale blocks are 128 x 128
constexpr int kConsumerGroups = 2;  // warp groups, 64 rows of the tile each
constexpr int kGroupRows = kTileM / kConsumerGroups;
constexpr int kThreads = 128 * (1 + kConsumerGroups);
constexpr int kRasterRows = 8;     // tile rows a wave sweeps together
constexpr int kWgmmaK = 32;        // FP8 wgmma depth
constexpr int kStoreColumns = 64;  // BF16 columns of a TMA store box: 128 B, the swizzle's width
constexpr int kStoreBoxBytes = kGroupRows * kStoreColumns * 2;
constexpr uint32_t kLoaderRegisters = 40;
constexpr uint32_t kConsumerRegisters = 232;
constexpr size_t kSharedMemoryLimit = 227 * 1024;

template <int kN>
struct WgmmaAtom;
template <>
struct WgmmaAtom<96> {
  using type = cute::SM90::GMMA::MMA_64x96x32_F32E4M3E4M3_SS_TN<>;
};
template <>
struct WgmmaAtom<128> {
  using type = cute::SM90::GMMA::MMA_64x128x32_F32E4M3E4M3_SS_TN<>;
};
template <>
struct WgmmaAtom<192> {
  using type = cute::SM90::GMMA::MMA_64x192x32_F32E4M3E4M3_SS_TN<>;
};

// A kernel's shape: the tile is 128 x kTileN, each consumer warp group's 64 rows of it computed
// kParts column parts at a time (the unit of its pipeline), and kClusterM CTAs along M share
// every B tile (TMA multicast). kOverlap: each unit's promotion runs under the next unit's wgmma
// (two partial accumulators of a part each), else after it (one partial of the whole width).
template <int kTileN_, int kParts_, bool kOverlap_, int kClusterM_>
struct Shape {
  static constexpr int kTileN = kTileN_;
  static constexpr int kParts = kParts_;
  static constexpr bool kOverlap = kOverlap_;
  static constexpr int kClusterM = kClusterM_;
  static constexpr int kPartN = kTileN / kParts;
  static constexpr int kPartial = 64 * kPartN / 128;  // FP32 a thread holds of a 64 x kPartN part
  static constexpr int kAccumulator = 64 * kTileN / 128;
  static constexpr int kATileBytes = kTileM * kTileK;  // E4M3: one byte an element
  static constexpr int kBTileBytes = kTileN * kTileK;
  static constexpr uint32_t kStageBytes = kATileBytes + kBTileBytes + kTileM * sizeof(float);
  static constexpr int kOutputBytes = kConsumerGroups * (kTileN / kStoreColumns) * kStoreBoxBytes;
  // As many stages as fit beside the output's staging (and the barriers, and the alignment).
  static constexpr int kStages =
      static_cast<int>((kSharedMemoryLimit - kOutputBytes - 2048) / (kStageBytes + 16));
  using Wgmma = typename WgmmaAtom<kPartN>::type;
  static_assert(kOverlap || kParts == 1, "a serial mainloop computes the whole width at once");
  static_assert(kTileN % kStoreColumns == 0 && kPartN % 8 == 0);
  static_assert(kTileN <= 2 * kScaleBlock && kScaleBlock % kStoreColumns == 0);
};

template <class S>
struct SharedStorage {
  alignas(1024) uint8_t a[S::kStages][S::kATileBytes];
  alignas(1024) uint8_t b[S::kStages][S::kBTileBytes];
  // Each consumer warp group's 64 output rows as 64-column boxes, swizzled as TMA stores them.
  alignas(1024) uint8_t output[kConsumerGroups][S::kTileN / kStoreColumns][kStoreBoxBytes];
  alignas(16) float scale_a[S::kStages][kTileM];
  cutlass::arch::ClusterTransactionBarrier full[S::kStages];  // loaded: TMA's bytes arrived
  cutlass::arch::ClusterBarrier empty[S::kStages];            // consumed: every consumer warp done
};
// Dynamic shared memory is only 16-byte aligned: one spare KiB to align the swizzled tiles.
template <class S>
constexpr size_t kSharedBytes = sizeof(SharedStorage<S>) + 1024;

struct Params {
  int m, n, k_blocks;
  int tiles_m, tiles_n;
  const float* scale_b;  // BLK128x128_32F [ceil(n/128)][scale_b_stride]
  int scale_b_stride;
  int scale_b_blocks;  // ceil(n/128)
};

// The tile (in units of a cluster's kClusterM tile rows) that a persistent cluster takes
// `unit`-th: kRasterRows tile rows at a time, down the rows first, then across.
template <int kClusterM>
__device__ __forceinline__ void unit_position(int unit, const Params& p, int& unit_m, int& tile_n) {
  constexpr int kBandUnits = kRasterRows / kClusterM;
  const int units_m = (p.tiles_m + kClusterM - 1) / kClusterM;
  const int per_band = kBandUnits * p.tiles_n;
  const int first = unit / per_band * kBandUnits;
  const int rows = min(units_m - first, kBandUnits);
  const int in_band = unit % per_band;
  unit_m = first + in_band % rows;
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

template <class Wgmma, int kSize, size_t... I>
__device__ __forceinline__ void wgmma(uint64_t desc_a, uint64_t desc_b, float (&d)[kSize],
                                      bool accumulate, std::index_sequence<I...>) {
  Wgmma::fma(desc_a, desc_b, d[I]...,
             accumulate ? cute::SM90::GMMA::ScaleOut::One : cute::SM90::GMMA::ScaleOut::Zero);
}

template <int kSize>
__device__ __forceinline__ void fence_fragment(float (&fragment)[kSize]) {
#pragma unroll
  for (int i = 0; i < kSize; ++i)
    cute::warpgroup_fence_operand(fragment[i]);
}

// One k-tile's wgmma (four 32-deep steps) of a column part into a fresh partial accumulator,
// issued, not waited for.
template <class S>
__device__ __forceinline__ void issue(float (&partial)[S::kPartial], const uint8_t* a,
                                      const uint8_t* b) {
  const uint64_t desc_a = smem_descriptor(a);
  const uint64_t desc_b = smem_descriptor(b);
  fence_fragment(partial);
  cute::warpgroup_arrive();
#pragma unroll
  for (int step = 0; step < kTileK / kWgmmaK; ++step) {
    // The start address advances 32 bytes a step inside the 128-byte swizzled rows (in 16-byte
    // units); the hardware applies the swizzle to the resulting address.
    wgmma<typename S::Wgmma>(desc_a + step * (kWgmmaK >> 4), desc_b + step * (kWgmmaK >> 4),
                             partial, step > 0, std::make_index_sequence<S::kPartial>{});
  }
  cute::warpgroup_commit_batch();
}

// A k-tile's combined scales for a thread's rows r and r + 8: A's scale of the row times the B
// scale of the 128-column weight block a column falls in; a tile of 192 columns straddles two.
struct KTileScales {
  float upper[2], lower[2];
};

// accumulator[part] += partial x scale (the wgmma fragment: four floats an 8-column slice, rows
// r, r, r + 8, r + 8). `second_block_from`: the tile column where B's second scale block starts.
template <class S, int kPart>
__device__ __forceinline__ void promote(float (&accumulator)[S::kAccumulator],
                                        const float (&partial)[S::kPartial],
                                        const KTileScales& scales, int second_block_from) {
#pragma unroll
  for (int slice = 0; slice < S::kPartN / 8; ++slice) {
    const int column = kPart * S::kPartN + 8 * slice;
    const bool second = S::kTileN > kScaleBlock && column >= second_block_from;
    const float upper = second ? scales.upper[1] : scales.upper[0];
    const float lower = second ? scales.lower[1] : scales.lower[0];
    float* out = accumulator + kPart * S::kPartial + 4 * slice;
    const float* in = partial + 4 * slice;
    out[0] = fmaf(in[0], upper, out[0]);
    out[1] = fmaf(in[1], upper, out[1]);
    out[2] = fmaf(in[2], lower, out[2]);
    out[3] = fmaf(in[3], lower, out[3]);
  }
}

template <class S>
__global__ void __launch_bounds__(kThreads, 1)
    overlapped_block_gemm(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b,
                          const __grid_constant__ CUtensorMap map_scale_a,
                          const __grid_constant__ CUtensorMap map_d, const Params p) {
  constexpr int kClusterM = S::kClusterM;
  constexpr int kStages = S::kStages;
  extern __shared__ uint8_t shared_raw[];
  auto& shared = *reinterpret_cast<SharedStorage<S>*>(
      (reinterpret_cast<uintptr_t>(shared_raw) + 1023) & ~uintptr_t{1023});
  const int warp_group = threadIdx.x / 128;
  const int rank = kClusterM > 1 ? static_cast<int>(cute::block_rank_in_cluster()) : 0;
  const int cluster = blockIdx.x / kClusterM;
  const int clusters = gridDim.x / kClusterM;
  const int units = (p.tiles_m + kClusterM - 1) / kClusterM * p.tiles_n;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      shared.full[s].init(1);
      shared.empty[s].init(kClusterM * kConsumerGroups * 4);  // one arrival a consumer warp
    }
    cutlass::arch::fence_barrier_init();
  }
  if constexpr (kClusterM > 1) {
    cute::cluster_sync();  // the peers' barriers exist before anyone signals them
  } else {
    __syncthreads();
  }

  if (warp_group == 0) {
    cutlass::arch::warpgroup_reg_dealloc<kLoaderRegisters>();
    if (threadIdx.x == 0) {
      constexpr uint64_t kCacheHint = static_cast<uint64_t>(cute::TMA::CacheHintSm90::EVICT_NORMAL);
      constexpr int kSliceRows = S::kTileN / kClusterM;
      int stage = 0;
      uint32_t phase = 0;
      for (int unit = cluster; unit < units; unit += clusters) {
        int unit_m, tile_n;
        unit_position<kClusterM>(unit, p, unit_m, tile_n);
        const int tile_m = unit_m * kClusterM + rank;  // past the last tile row: loads zeros
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          shared.empty[stage].wait(phase ^ 1);  // a fresh barrier passes parity 1 at once
          auto* full = reinterpret_cast<uint64_t*>(&shared.full[stage]);
          shared.full[stage].arrive_and_expect_tx(S::kStageBytes);
          cute::SM90_TMA_LOAD_2D::copy(&map_a, full, kCacheHint, shared.a[stage], kb * kTileK,
                                       tile_m * kTileM);
          cute::SM90_TMA_LOAD_2D::copy(&map_scale_a, full, kCacheHint, shared.scale_a[stage],
                                       tile_m * kTileM, kb);
          uint8_t* slice = shared.b[stage] + rank * kSliceRows * kTileK;
          const int slice_row = tile_n * S::kTileN + rank * kSliceRows;
          if constexpr (kClusterM > 1) {
            cute::SM90_TMA_LOAD_MULTICAST_2D::copy(&map_b, full, (1 << kClusterM) - 1, kCacheHint,
                                                   slice, kb * kTileK, slice_row);
          } else {
            cute::SM90_TMA_LOAD_2D::copy(&map_b, full, kCacheHint, slice, kb * kTileK, slice_row);
          }
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    cutlass::arch::warpgroup_reg_alloc<kConsumerRegisters>();
    const int group = warp_group - 1;
    const int thread = threadIdx.x % 128;
    const int warp = thread / 32;
    const int lane = thread % 32;
    const int row_in_group = warp * 16 + lane / 4;  // and row_in_group + 8
    const int row_in_tile = group * kGroupRows + row_in_group;
    int stage = 0;
    uint32_t phase = 0;
    float accumulator[S::kAccumulator];
    float partial_even[S::kPartial];
    float partial_odd[S::kPartial];

    for (int unit = cluster; unit < units; unit += clusters) {
      int unit_m, tile_n;
      unit_position<kClusterM>(unit, p, unit_m, tile_n);
      const int tile_m = unit_m * kClusterM + rank;
      const int first_column = tile_n * S::kTileN;
      const int first_block = first_column / kScaleBlock;
      const int second_block_from = (first_block + 1) * kScaleBlock - first_column;
      const float* scale_b_row = p.scale_b + static_cast<int64_t>(first_block) * p.scale_b_stride;
      const int64_t second_row_offset = first_block + 1 < p.scale_b_blocks ? p.scale_b_stride : 0;
#pragma unroll
      for (int i = 0; i < S::kAccumulator; ++i)
        accumulator[i] = 0.0f;

      // Waits for k-tile kb's operands and reads its scales (A's from shared memory, B's one or
      // two from global: broadcast loads).
      auto wait_k_tile = [&](int kb) {
        shared.full[stage].wait(phase);
        KTileScales scales;
        const float a_upper = shared.scale_a[stage][row_in_tile];
        const float a_lower = shared.scale_a[stage][row_in_tile + 8];
#pragma unroll
        for (int block = 0; block < (S::kTileN > kScaleBlock ? 2 : 1); ++block) {
          const float b = __ldg(scale_b_row + block * second_row_offset + kb);
          scales.upper[block] = a_upper * b;
          scales.lower[block] = a_lower * b;
        }
        if constexpr (S::kTileN <= kScaleBlock) {
          scales.upper[1] = scales.upper[0];
          scales.lower[1] = scales.lower[0];
        }
        return scales;
      };
      auto issue_part = [&](float(&partial)[S::kPartial], int part) {
        issue<S>(partial, shared.a[stage] + group * kGroupRows * kTileK,
                 shared.b[stage] + part * S::kPartN * kTileK);
      };
      // Frees the k-tile's stage in every CTA of the cluster (its wgmma waited for).
      auto release = [&](int finished_stage) {
        if (lane == 0) {
#pragma unroll
          for (int cta = 0; cta < kClusterM; ++cta) {
            if constexpr (kClusterM > 1) {
              shared.empty[finished_stage].arrive(cta);
            } else {
              shared.empty[finished_stage].arrive();
            }
          }
        }
      };
      auto advance = [&] {
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      };

      if constexpr (!S::kOverlap) {
        for (int kb = 0; kb < p.k_blocks; ++kb) {
          const KTileScales scales = wait_k_tile(kb);
          issue_part(partial_even, 0);
          cute::warpgroup_wait<0>();
          fence_fragment(partial_even);
          release(stage);
          advance();
          promote<S, 0>(accumulator, partial_even, scales, second_block_from);
        }
      } else {
        // The pipeline's units are (k-tile, column part) pairs in order, even ones into
        // partial_even and odd ones into partial_odd; after issuing one, the one before it is
        // waited for and promoted. With two parts, part 0 is always even and part 1 odd.
        static_assert(S::kParts <= 2);
        constexpr int kOddPart = S::kParts == 2 ? 1 : 0;
        const int total = p.k_blocks * S::kParts;
        KTileScales scales = wait_k_tile(0);  // of the k-tile being issued
        KTileScales even_scales = scales, odd_scales = scales;
        int even_stage = stage, odd_stage = stage;
        issue_part(partial_even, 0);
        if constexpr (S::kParts == 1)
          advance();
        // Issues odd unit u (the next k-tile's, with one part) and finishes unit u - 1.
        auto issue_odd_finish_even = [&](int u) {
          if constexpr (S::kParts == 1)
            scales = wait_k_tile(u);
          odd_stage = stage;
          odd_scales = scales;
          issue_part(partial_odd, kOddPart);
          advance();  // with two parts: the k-tile's last part is issued
          cute::warpgroup_wait<1>();
          fence_fragment(partial_even);
          if constexpr (S::kParts == 1)
            release(even_stage);
          promote<S, 0>(accumulator, partial_even, even_scales, second_block_from);
        };
        // Both halves unconditional in the loop, and the tail apart: ptxas then sees which
        // wgmma each wait leaves in flight (else it serializes them all).
        int u = 1;
        for (; u + 1 < total; u += 2) {
          issue_odd_finish_even(u);
          scales = wait_k_tile((u + 1) / S::kParts);
          even_stage = stage;
          even_scales = scales;
          issue_part(partial_even, 0);
          if constexpr (S::kParts == 1)
            advance();
          cute::warpgroup_wait<1>();
          fence_fragment(partial_odd);
          release(odd_stage);
          promote<S, kOddPart>(accumulator, partial_odd, odd_scales, second_block_from);
        }
        if (u < total) {  // the last unit is odd (always so with two parts)
          issue_odd_finish_even(u);
          cute::warpgroup_wait<0>();
          fence_fragment(partial_odd);
          release(odd_stage);
          promote<S, kOddPart>(accumulator, partial_odd, odd_scales, second_block_from);
        } else {
          cute::warpgroup_wait<0>();
          fence_fragment(partial_even);
          release(even_stage);
          promote<S, 0>(accumulator, partial_even, even_scales, second_block_from);
        }
      }

      // Store through shared memory: wait until TMA has read the last tile's boxes, write this
      // one's as BF16 (the fragment's four floats an 8-column slice are rows r, r + 8 by two
      // columns; 128B-swizzled: 16-byte chunk c of row r at c ^ (r % 8), which also spreads a
      // warp's stores over all 32 banks), then one thread stores the boxes.
      const uint32_t barrier_id = 1 + group;
      if (thread == 0)
        cute::tma_store_wait<0>();
      cutlass::arch::NamedBarrier::sync(128, barrier_id);
#pragma unroll
      for (int slice = 0; slice < S::kTileN / 8; ++slice) {
        uint8_t* box = shared.output[group][slice / (kStoreColumns / 8)];
        const int chunk = slice % (kStoreColumns / 8);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const int row = row_in_group + 8 * half;
          const int offset = row * 128 + ((chunk ^ (row % 8)) * 16) + 4 * (lane % 4);
          *reinterpret_cast<__nv_bfloat162*>(box + offset) = __floats2bfloat162_rn(
              accumulator[4 * slice + 2 * half], accumulator[4 * slice + 2 * half + 1]);
        }
      }
      cutlass::arch::fence_view_async_shared();
      cutlass::arch::NamedBarrier::sync(128, barrier_id);
      if (thread == 0 && tile_m < p.tiles_m) {
#pragma unroll
        for (int box = 0; box < S::kTileN / kStoreColumns; ++box) {
          cute::SM90_TMA_STORE_2D::copy(&map_d, shared.output[group][box],
                                        first_column + box * kStoreColumns,
                                        tile_m * kTileM + group * kGroupRows);
        }
        cute::tma_store_arrive();
      }
    }
    if (thread == 0)
      cute::tma_store_wait<0>();  // the shared memory must outlive TMA's reads
  }
  if constexpr (kClusterM > 1)
    cute::cluster_sync();  // no CTA leaves while a peer may still signal its barriers
}

// A 2D TMA map of a row-major [rows, columns] tensor, boxes of box_rows x box_columns.
CUtensorMap tensor_map(const void* base, CUtensorMapDataType type, uint64_t rows, uint64_t columns,
                       uint64_t row_bytes, uint32_t box_rows, uint32_t box_columns,
                       CUtensorMapSwizzle swizzle) {
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

template <class S>
class OverlappedBlockGemm final : public GroupedGemm {
  static constexpr int kClusterM = S::kClusterM;

 public:
  OverlappedBlockGemm(const Problem& problem, std::string algorithm)
      : algorithm_(std::move(algorithm)) {
    const int k_blocks = static_cast<int>(ceil_div(problem.k, kTileK));
    const uint64_t padded_m = static_cast<uint64_t>(round_up(problem.m, kScaleRowAlignment));
    map_a_ = tensor_map(problem.a, CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.m, problem.k, problem.k,
                        kTileM, kTileK, CU_TENSOR_MAP_SWIZZLE_128B);
    map_b_ = tensor_map(problem.b, CU_TENSOR_MAP_DATA_TYPE_UINT8, problem.n, problem.k, problem.k,
                        S::kTileN / kClusterM, kTileK, CU_TENSOR_MAP_SWIZZLE_128B);
    // VEC128_32F: [k_blocks][padded m], a tile's 128 rows of one k-block are one box.
    map_scale_a_ = tensor_map(problem.scale_a, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, k_blocks, padded_m,
                              padded_m * sizeof(float), 1, kTileM, CU_TENSOR_MAP_SWIZZLE_NONE);
    map_d_ =
        tensor_map(problem.d, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, problem.m, problem.n,
                   uint64_t{2} * problem.n, kGroupRows, kStoreColumns, CU_TENSOR_MAP_SWIZZLE_128B);
    params_.m = problem.m;
    params_.n = problem.n;
    params_.k_blocks = k_blocks;
    params_.tiles_m = static_cast<int>(ceil_div(problem.m, kTileM));
    params_.tiles_n = static_cast<int>(ceil_div(problem.n, S::kTileN));
    params_.scale_b = problem.scale_b;
    params_.scale_b_stride = static_cast<int>(block128_scale_index(1, 0, problem.k) -
                                              block128_scale_index(0, 0, problem.k));
    params_.scale_b_blocks = static_cast<int>(ceil_div(problem.n, kScaleBlock));

    CUDA_CHECK(cudaFuncSetAttribute(overlapped_block_gemm<S>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBytes<S>)));
    // One CTA an SM, as many clusters as can be resident at once (an SM left over in a GPC
    // whose count is odd cannot take half a cluster), each looping over its share of tiles.
    const int sm_count = detail::require_sm90("overlapped FP8Block GEMM");
    int resident = sm_count / kClusterM;
    if constexpr (kClusterM > 1) {
      cudaLaunchConfig_t config = launch_config(sm_count / kClusterM * kClusterM, nullptr);
      CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, overlapped_block_gemm<S>, &config));
    }
    const int units = static_cast<int>(ceil_div(params_.tiles_m, kClusterM)) * params_.tiles_n;
    grid_ = std::max(1, std::min(units, resident)) * kClusterM;
  }

  void run(cudaStream_t stream) const override {
    const cudaLaunchConfig_t config = launch_config(grid_, stream);
    CUDA_CHECK(cudaLaunchKernelEx(&config, overlapped_block_gemm<S>, map_a_, map_b_, map_scale_a_,
                                  map_d_, params_));
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return 1; }

 private:
  cudaLaunchConfig_t launch_config(int grid, cudaStream_t stream) const {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kSharedBytes<S>;
    config.stream = stream;
    cluster_.id = cudaLaunchAttributeClusterDimension;
    cluster_.val.clusterDim.x = kClusterM;
    cluster_.val.clusterDim.y = 1;
    cluster_.val.clusterDim.z = 1;
    config.attrs = &cluster_;
    config.numAttrs = 1;
    return config;
  }

  std::string algorithm_;
  CUtensorMap map_a_{}, map_b_{}, map_scale_a_{}, map_d_{};
  Params params_{};
  int grid_ = 0;
  mutable cudaLaunchAttribute cluster_{};
};

std::string refusal(const Problem& problem) {
  if (problem.scaling != BlockScaling::k1d2d)
    return "built for 1x128 x 128x128 block scales only";
  return "";
}

template <class S>
std::unique_ptr<GroupedGemm> plan(const Problem& problem, int /*max_swizzle*/,
                                  const std::string& algorithm, cudaStream_t /*stream*/) {
  return std::make_unique<OverlappedBlockGemm<S>>(problem, algorithm);
}

template <class S>
Configuration describe() {
  static_assert(kSharedBytes<S> <= kSharedMemoryLimit);
  Configuration c{};
  c.scaling = BlockScaling::k1d2d;
  c.schedule = S::kOverlap ? Schedule::kOverlapped : Schedule::kSerial;
  c.scheduler = TileScheduler::kPersistent;
  c.tile_m = kTileM;
  c.tile_n = S::kTileN;
  c.tile_k = kTileK;
  c.cluster_m = S::kClusterM;
  c.cluster_n = 1;
  c.refusal = &refusal;
  c.plan = &plan<S>;
  return c;
}

}  // namespace

Configuration config_1d2d_overlapped_128_1x1() {
  return describe<Shape<128, 1, true, 1>>();
}
Configuration config_1d2d_overlapped_128_2x1() {
  return describe<Shape<128, 1, true, 2>>();
}
Configuration config_1d2d_overlapped_192_1x1() {
  return describe<Shape<192, 2, true, 1>>();
}
Configuration config_1d2d_overlapped_192_2x1() {
  return describe<Shape<192, 2, true, 2>>();
}
Configuration config_1d2d_serial_192_2x1() {
  return describe<Shape<192, 1, false, 2>>();
}

}  // namespace gemmscope::cutlass_dense
