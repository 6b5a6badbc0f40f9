#include "quant/fp8/detail/tile_cast.h"

#include <cuda_fp8.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/detail/dependent_launch.cuh"
#include "quant/detail/evict_first.cuh"
#include "quant/detail/fp8_device.cuh"
#include "quant/fp8/detail/amax.cuh"
#include "quant/fp8/detail/line_amax.cuh"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope::detail {
namespace {

constexpr int kTile = 128;  // the block size of both block recipes, so one tile serves all
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kChunkElements = 8;  // BF16 per 16-byte chunk
constexpr int kChunksPerRow = kTile / kChunkElements;
constexpr unsigned int kFullWarp = 0xffffffffu;
// Resident blocks an SM should hold. Shared memory allows 6 (33 KiB each); 48 registers a
// thread allow 5 (ptxas alone would take up to 64 and so 4 blocks). The one-tensor variants of
// the vector path fit them but kRowwise's, which spills 24 bytes, as the grouped kVec128 and
// kRowwise variants spill 28-32 (nvcc 13.0): measured at 80-103% of copy bandwidth as they are,
// not yet against a 4-block bound. The scalar fallback for odd shapes gets 64.
constexpr int kMinBlocksPerSm = 5;
constexpr int kMinBlocksPerSmScalar = 4;

static_assert(kE4M3MaxFinite == 448.0f, "e4m3_power_of_2_scale_bits() is derived for 448");

struct KernelParams {
  const uint16_t* input;
  int64_t rows;
  int64_t cols;
  int64_t scale_rows;  // rows and cols rounded up to kScaleRowAlignment: the VEC128 slot
  int64_t scale_cols;  // counts of one block column of the rowwise and columnwise scales
  unsigned int row_tiles;
  unsigned int col_tiles;
  uint8_t* rowwise;
  uint8_t* columnwise;
  const float* scale;
  float* amax_record;
  float* rowwise_scale_inv;
  float* columnwise_scale_inv;
  float* stacked_rowwise_scale_inv;  // or null
  int64_t stacked_scale_stride;
  uint32_t* row_amax_bits;  // kRowwise
  uint32_t* col_amax_bits;
};

// One tensor of a grouped cast, in device memory: its arguments, where the grouped amax kernel
// writes its amax (current scaling), and its first tile row among all tensors' tile rows.
struct TensorTiles {
  KernelParams params;
  float* amax;
  unsigned int first_tile_row;
  bool aligned;  // whether the tensor alone would take the vector path
};

// A grouped cast's kernel argument: the tensors and, for each tile row of them all, the index of
// the tensor it belongs to (a table, so that a block finds its tensor in one load).
struct GroupedTiles {
  const TensorTiles* __restrict__ tensors;
  const uint32_t* __restrict__ tile_row_tensor;
  unsigned int col_tiles;  // the same for every tensor: they share cols
  unsigned int tile_rows;  // of all tensors
};

// Offset, in BF16 elements, of 16-byte chunk `chunk` of tile row `row`. Chunks are XOR-swizzled
// by (row / 16) % 8, which gives each quarter warp 8 distinct 16-byte bank groups in all three
// access patterns: 8 consecutive chunks of a row (load), chunk pairs of a row (rowwise pass), and
// one chunk of 8 rows 16 apart (columnwise pass). No bank conflicts, no padding.
__device__ __forceinline__ int tile_offset(int row, int chunk) {
  return row * kTile + (chunk ^ ((row >> 4) & 7)) * kChunkElements;
}

// tile_offset(row + 16 * bands, chunk) from offset = tile_offset(row, chunk), for the rows where
// adding `bands` to the swizzle (row / 16) % 8 is an XOR (they share no set bit): one LOP3 and
// an immediate address offset instead of recomputing the swizzle.
__device__ __forceinline__ int tile_offset_bands_below(int offset, int bands) {
  return (offset ^ ((bands % 8) * kChunkElements)) + bands * 16 * kTile;
}

// Eight BF16 from `source`, of which the first `valid` exist (none when valid <= 0); zeros stand
// for the others (they never reach an output and cannot raise an amax). Aligned mode: cols % 16
// == 0, so a chunk is wholly in or out. kEvictFirst: an aligned load's lines are the first the L2
// evicts (quant/detail/evict_first.cuh).
template <bool kAligned, bool kEvictFirst>
__device__ __forceinline__ uint4 load_chunk(const uint16_t* source, int valid) {
  if (valid <= 0)
    return make_uint4(0, 0, 0, 0);
  if constexpr (kAligned && kEvictFirst) {
    return load_evict_first(source);
  } else if constexpr (kAligned) {
    return __ldg(reinterpret_cast<const uint4*>(source));
  } else {
    uint32_t words[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < kChunkElements; ++i) {
      const uint32_t element = i < valid ? __ldg(source + i) : 0u;
      words[i / 2] |= element << (16 * (i % 2));
    }
    return make_uint4(words[0], words[1], words[2], words[3]);
  }
}

// Writes the first `valid` of 16 bytes to destination (none when valid <= 0; aligned mode: the
// line length is a multiple of 16, so never clipped mid-vector). kEvictFirst: as load_chunk's.
template <bool kAligned, bool kEvictFirst>
__device__ __forceinline__ void store_16_bytes(uint8_t* destination, int valid, uint4 bytes) {
  if (valid <= 0)
    return;
  if constexpr (kAligned && kEvictFirst) {
    store_evict_first(destination, bytes);
  } else if constexpr (kAligned) {
    *reinterpret_cast<uint4*>(destination) = bytes;
  } else {
    const uint32_t words[4] = {bytes.x, bytes.y, bytes.z, bytes.w};
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      if (i < valid)
        destination[i] = static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
    }
  }
}

// Column `kColumn` (0..3) of a 4-element row slice, as FP32.
template <int kColumn>
__device__ __forceinline__ float column_value(uint2 row) {
  const uint32_t pair = kColumn < 2 ? row.x : row.y;
  return kColumn % 2 == 0 ? bf16_low(pair) : bf16_high(pair);
}

// Sixteen FP8 bytes of column `kColumn` over the 16 rows held in `rows`.
template <int kColumn, __nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint4 quantize_column(const uint2 (&rows)[16], float scale) {
  uint32_t words[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const uint32_t low = quantize_pair<kFormat>(column_value<kColumn>(rows[4 * w]),
                                                column_value<kColumn>(rows[4 * w + 1]), scale);
    const uint32_t high = quantize_pair<kFormat>(column_value<kColumn>(rows[4 * w + 2]),
                                                 column_value<kColumn>(rows[4 * w + 3]), scale);
    words[w] = low | (high << 16);
  }
  return make_uint4(words[0], words[1], words[2], words[3]);
}

// Max of a value over the 8 neighbouring lanes that share a 1x128 block.
__device__ __forceinline__ uint32_t max_over_8_lanes(uint32_t lanes) {
#pragma unroll
  for (int offset = 1; offset < 8; offset *= 2)
    lanes = __vmaxu2(lanes, __shfl_xor_sync(kFullWarp, lanes, offset));
  return lanes;
}

// Tile (tile_row, tile_col) of the tensor `p` describes, staged in the kernel's shared `tile`.
// The kernels own the shared arrays: a grouped kernel inlines both paths' bodies, which must
// share one tile rather than take one each. kEvictFirst: the tile's input and output lines are the
// first the L2 evicts (load_chunk).
template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAligned, bool kEvictFirst>
__device__ __forceinline__ void cast_tile(const KernelParams& p, unsigned int tile_row,
                                          unsigned int tile_col, uint16_t* tile,
                                          uint32_t* warp_amax_bits) {
  const int64_t row0 = static_cast<int64_t>(tile_row) * kTile;
  const int64_t col0 = static_cast<int64_t>(tile_col) * kTile;
  // How many of the tile's rows and columns the tensor has (1..128); the edge tiles have fewer.
  const int tile_rows = static_cast<int>(min(p.rows - row0, static_cast<int64_t>(kTile)));
  const int tile_cols = static_cast<int>(min(p.cols - col0, static_cast<int64_t>(kTile)));
  const int thread = threadIdx.x;
  const int lane = thread % 32;

  float tensor_scale = 1.0f;
  if constexpr (kScaling == TileScaling::kTensorwise)
    tensor_scale = *p.scale;
  const bool needs_tile_amax = kScaling == TileScaling::kBlock128x128 ||
                               (kScaling == TileScaling::kTensorwise && p.amax_record != nullptr);

  // Phase 1: global -> shared. 16 threads cover a 256-byte tile row; all eight loads are issued
  // before the first shared store so that they are in flight together.
  {
    constexpr int kRowStep = kThreads / kChunksPerRow;
    constexpr int kLoads = kTile / kRowStep;
    const int chunk = thread % kChunksPerRow;
    const int first_row = thread / kChunksPerRow;
    const int valid = tile_cols - chunk * kChunkElements;
    const uint16_t* source = p.input + (row0 + first_row) * p.cols + col0 + chunk * kChunkElements;
    const int64_t step = kRowStep * p.cols;
    static_assert(kRowStep == 16, "row first_row + 16 i has swizzle i");
    const int offset = tile_offset(first_row, chunk);
    uint4 loaded[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      loaded[i] = load_chunk<kAligned, kEvictFirst>(
          source + i * step, first_row + i * kRowStep < tile_rows ? valid : 0);
    }
    // kRowwise: launched to start while the line amax pass ends (launch_blocks), it waits for
    // that pass here, with its loads in flight, before anything reads the amaxes.
    if constexpr (kScaling == TileScaling::kRowwise)
      wait_for_prior_kernel();
    uint32_t lanes = 0;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      *reinterpret_cast<uint4*>(&tile[tile_offset_bands_below(offset, i)]) = loaded[i];
      if (needs_tile_amax)
        lanes = max_magnitudes(lanes, max_magnitudes(loaded[i]));
    }
    if (needs_tile_amax) {
      const uint32_t bits =
          __reduce_max_sync(kFullWarp, lanes_to_amax_bits(finish_magnitudes(lanes)));
      if (lane == 0)
        warp_amax_bits[thread / 32] = bits;
    }
  }
  __syncthreads();

  if constexpr (kScaling == TileScaling::kTensorwise) {
    if (p.amax_record != nullptr && thread == 0) {
      uint32_t tile_amax_bits = 0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w)
        tile_amax_bits = max(tile_amax_bits, warp_amax_bits[w]);
      if (tile_amax_bits != 0)
        atomicMax(reinterpret_cast<unsigned int*>(p.amax_record), tile_amax_bits);
    }
  }

  float block_scale = 1.0f;
  if constexpr (kScaling == TileScaling::kBlock128x128) {
    uint32_t tile_amax_bits = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      tile_amax_bits = max(tile_amax_bits, warp_amax_bits[w]);
    const uint32_t scale_bits = e4m3_power_of_2_scale_bits(tile_amax_bits);
    block_scale = __uint_as_float(scale_bits);
    if (thread == 0) {
      const float scale_inv = __uint_as_float(power_of_2_inverse_bits(scale_bits));
      if (p.rowwise != nullptr) {
        p.rowwise_scale_inv[block128_scale_index(tile_row, tile_col, p.cols)] = scale_inv;
        if (tile_col == p.col_tiles - 1) {
          for (int64_t b = p.col_tiles; b < round_up(p.col_tiles, kScaleRowAlignment); ++b) {
            p.rowwise_scale_inv[block128_scale_index(tile_row, b, p.cols)] = kScalePadding;
          }
        }
      }
      if (p.columnwise != nullptr) {
        p.columnwise_scale_inv[block128_scale_index(tile_col, tile_row, p.rows)] = scale_inv;
        if (tile_row == p.row_tiles - 1) {
          for (int64_t b = p.row_tiles; b < round_up(p.row_tiles, kScaleRowAlignment); ++b) {
            p.columnwise_scale_inv[block128_scale_index(tile_col, b, p.rows)] = kScalePadding;
          }
        }
      }
    }
  }
  const float common_scale = kScaling == TileScaling::kBlock128x128 ? block_scale : tensor_scale;

  // Phase 2: rowwise copy. 8 threads cover a tile row, 16 columns (one 16-byte store) each.
  if (p.rowwise != nullptr) {
    constexpr int kThreadsPerRow = kTile / 16;
    constexpr int kRowStep = kThreads / kThreadsPerRow;
    const int group = thread % kThreadsPerRow;
    const int first_row = thread / kThreadsPerRow;
    const int valid = tile_cols - group * 16;
    uint8_t* destination = p.rowwise + (row0 + first_row) * p.cols + col0 + group * 16;
    const int64_t step = kRowStep * p.cols;
    // Groups 4..7 read their high chunk first, so a quarter warp's 8 reads cover all 8 bank
    // groups (chunks 0,2,4,6,9,11,13,15, then the others).
    const bool high_first = (group & 4) != 0;
    const int first_chunk = 2 * group + (high_first ? 1 : 0);
    // Row first_row + 32 i is 2 i bands below first_row (< 32), whose swizzle is 0 or 1.
    static_assert(kRowStep == 32, "rows 32 apart");
    const int first_offset = tile_offset(first_row, first_chunk);
    const int second_offset = tile_offset(first_row, first_chunk ^ 1);
#pragma unroll
    for (int i = 0; i < kTile / kRowStep; ++i) {
      const int r = first_row + i * kRowStep;
      const uint4 first =
          *reinterpret_cast<const uint4*>(&tile[tile_offset_bands_below(first_offset, 2 * i)]);
      const uint4 second =
          *reinterpret_cast<const uint4*>(&tile[tile_offset_bands_below(second_offset, 2 * i)]);

      float scale = common_scale;
      if constexpr (kScaling == TileScaling::kRowwise) {
        // The row's scale from its amax over every column; the first tile column writes it.
        if (r < tile_rows) {
          const uint32_t scale_bits = e4m3_power_of_2_scale_bits(p.row_amax_bits[row0 + r]);
          scale = __uint_as_float(scale_bits);
          if (group == 0 && tile_col == 0)
            p.rowwise_scale_inv[row0 + r] = __uint_as_float(power_of_2_inverse_bits(scale_bits));
        }
      }
      if constexpr (kScaling == TileScaling::kVec128) {
        const uint32_t lanes = max_over_8_lanes(
            finish_magnitudes(max_magnitudes(max_magnitudes(first), max_magnitudes(second))));
        const uint32_t scale_bits = e4m3_power_of_2_scale_bits(lanes_to_amax_bits(lanes));
        scale = __uint_as_float(scale_bits);
        // The row's VEC128 slot; rows up to the next multiple of 4 get padding.
        if (group == 0 && row0 + r < p.scale_rows) {
          const float scale_inv = __uint_as_float(power_of_2_inverse_bits(scale_bits));
          p.rowwise_scale_inv[tile_col * p.scale_rows + row0 + r] =
              r < tile_rows ? scale_inv : kScalePadding;
          if (p.stacked_rowwise_scale_inv != nullptr && r < tile_rows)
            p.stacked_rowwise_scale_inv[tile_col * p.stacked_scale_stride + row0 + r] = scale_inv;
        }
      }
      // Quantize in read order, then put the two 8-byte halves in column order.
      const uint2 from_first = make_uint2(quantize_bf16_quad<kFormat>(first.x, first.y, scale),
                                          quantize_bf16_quad<kFormat>(first.z, first.w, scale));
      const uint2 from_second = make_uint2(quantize_bf16_quad<kFormat>(second.x, second.y, scale),
                                           quantize_bf16_quad<kFormat>(second.z, second.w, scale));
      const uint2 low = high_first ? from_second : from_first;
      const uint2 high = high_first ? from_first : from_second;
      store_16_bytes<kAligned, kEvictFirst>(destination + i * step, r < tile_rows ? valid : 0,
                                            make_uint4(low.x, low.y, high.x, high.y));
    }
  }

  // Phase 3: columnwise copy (the transpose). A thread reads a 16-row x 4-column slice and
  // writes 4 columnwise rows of 16 bytes; the 8 threads sharing a column cover its 128 rows.
  if (p.columnwise != nullptr) {
    constexpr int kRowGroups = kTile / 16;
    const int group = thread % kRowGroups;
    const int quad = thread / kRowGroups;
    uint2 rows[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      rows[k] = *reinterpret_cast<const uint2*>(
          &tile[tile_offset(group * 16 + k, quad / 2) + (quad % 2) * 4]);
    }

    float scales[4] = {common_scale, common_scale, common_scale, common_scale};
    if constexpr (kScaling == TileScaling::kRowwise) {
      // Each column's scale from its amax over every row; the first tile row writes it.
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t col = col0 + quad * 4 + j;
        if (quad * 4 + j < tile_cols) {
          const uint32_t scale_bits = e4m3_power_of_2_scale_bits(p.col_amax_bits[col]);
          scales[j] = __uint_as_float(scale_bits);
          if (group == 0 && tile_row == 0)
            p.columnwise_scale_inv[col] = __uint_as_float(power_of_2_inverse_bits(scale_bits));
        }
      }
    }
    if constexpr (kScaling == TileScaling::kVec128) {
      uint32_t lanes_01 = rows[0].x;  // columns 0 and 1 of the slice
      uint32_t lanes_23 = rows[0].y;  // columns 2 and 3
#pragma unroll
      for (int k = 1; k < 16; ++k) {
        lanes_01 = max_magnitudes(lanes_01, rows[k].x);
        lanes_23 = max_magnitudes(lanes_23, rows[k].y);
      }
      lanes_01 = max_over_8_lanes(finish_magnitudes(lanes_01));
      lanes_23 = max_over_8_lanes(finish_magnitudes(lanes_23));
      const uint32_t amax_bits[4] = {lanes_01 << 16, lanes_01 & 0xffff0000u, lanes_23 << 16,
                                     lanes_23 & 0xffff0000u};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t scale_bits = e4m3_power_of_2_scale_bits(amax_bits[j]);
        scales[j] = __uint_as_float(scale_bits);
        // The column's VEC128 slot; columns up to the next multiple of 4 get padding.
        const int64_t col = col0 + quad * 4 + j;
        if (group == 0 && col < p.scale_cols) {
          p.columnwise_scale_inv[tile_row * p.scale_cols + col] =
              quad * 4 + j < tile_cols ? __uint_as_float(power_of_2_inverse_bits(scale_bits))
                                       : kScalePadding;
        }
      }
    }

    const int valid = tile_rows - group * 16;
    uint8_t* destination = p.columnwise + (col0 + quad * 4) * p.rows + row0 + group * 16;
    const auto store_column = [&](int j, uint4 bytes) {
      store_16_bytes<kAligned, kEvictFirst>(destination + j * p.rows,
                                            quad * 4 + j < tile_cols ? valid : 0, bytes);
    };
    store_column(0, quantize_column<0, kFormat>(rows, scales[0]));
    store_column(1, quantize_column<1, kFormat>(rows, scales[1]));
    store_column(2, quantize_column<2, kFormat>(rows, scales[2]));
    store_column(3, quantize_column<3, kFormat>(rows, scales[3]));
  }
}

// CTAs take the tile rows bottom-up (CTAs start roughly in blockIdx order): current scaling's
// amax pass and rowwise scaling's line amax pass read the tensor top-down just before, so the
// rows they read last, the likeliest to be still in L2, are read first. For the other scalings
// the order makes no difference.
// kRowwise's tiles also load and store evict-first, so that the cast's own misses and writes do
// not push those rows out before it reaches them. On an H200 (2026-11-28, against plain loads and
// stores, alternately: three rounds of `both` over two calls, one of columnwise) that raised its
// `both` copies by 2.4-3.9 points of copy bandwidth at 4096 columns (X 15872x4096: 111.0 -> 108.0
// us) and 1.0-2.6 at 12288-16384, and its columnwise copies by 2.9-4.5 at 4096 columns and by
// -0.5 to 0.0 at 12288-16384 (tensors of 0.39-0.52 GB, far beyond the L2). FP8Current's cast with
// the same hints, timed the same way in a scratch build, lost 0.5-2.8 points, for reasons not
// understood: it keeps plain ones, and so does the grouped cast, not timed with them.
template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAligned>
__global__ void __launch_bounds__(kThreads, kAligned ? kMinBlocksPerSm : kMinBlocksPerSmScalar)
    tile_cast_kernel(const KernelParams p) {
  __shared__ alignas(16) uint16_t tile[kTile * kTile];
  __shared__ uint32_t warp_amax_bits[kWarps];
  const unsigned int walk_row = blockIdx.x / p.col_tiles;
  const unsigned int tile_col = blockIdx.x - walk_row * p.col_tiles;
  cast_tile<kScaling, kFormat, kAligned, kScaling == TileScaling::kRowwise>(
      p, p.row_tiles - 1 - walk_row, tile_col, tile, warp_amax_bits);
}

// The tile rows of all tensors of a grouped cast, bottom-up like a single tensor's (the groups
// lie one after the other in the input, so this is bottom-up in memory too). kAllAligned: every
// tensor takes the vector path; otherwise each tensor takes the path it would take alone, so
// one unaligned group does not slow the others down to the scalar path.
template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAllAligned>
__global__ void __launch_bounds__(kThreads, kAllAligned ? kMinBlocksPerSm : kMinBlocksPerSmScalar)
    grouped_tile_cast_kernel(const GroupedTiles tiles) {
  __shared__ alignas(16) uint16_t tile[kTile * kTile];
  __shared__ uint32_t warp_amax_bits[kWarps];
  const unsigned int walk_row = blockIdx.x / tiles.col_tiles;
  const unsigned int tile_col = blockIdx.x - walk_row * tiles.col_tiles;
  const unsigned int tile_row = tiles.tile_rows - 1 - walk_row;
  // The tensor's arguments are read from global memory where the tile needs them (L1 hits after
  // the first), as a single tensor's are read from the constant bank.
  const TensorTiles& tensor = tiles.tensors[__ldg(tiles.tile_row_tensor + tile_row)];
  if (kAllAligned || tensor.aligned) {
    cast_tile<kScaling, kFormat, true, false>(tensor.params, tile_row - tensor.first_tile_row,
                                              tile_col, tile, warp_amax_bits);
  } else {
    cast_tile<kScaling, kFormat, false, false>(tensor.params, tile_row - tensor.first_tile_row,
                                               tile_col, tile, warp_amax_bits);
  }
}

// compute_amax of every tensor of a grouped cast, over the same tiles, top-down: a tile row's
// rows are contiguous in the input, so block b reads chunk b % col_tiles of kTile * kTile
// elements of tile row b / col_tiles (a tile row has at most col_tiles such chunks; blocks past
// a short tile row's last chunk have nothing to do).
__global__ void __launch_bounds__(kAmaxThreads) grouped_amax_kernel(const GroupedTiles tiles) {
  constexpr int64_t kChunk = kTile * kTile;
  static_assert(kChunk == kAmaxThreads * kAmaxUnroll * kChunkElements,
                "a chunk is one unrolled round of 16-byte loads");
  const unsigned int tile_row = blockIdx.x / tiles.col_tiles;
  const unsigned int chunk = blockIdx.x - tile_row * tiles.col_tiles;
  const TensorTiles& tensor = tiles.tensors[__ldg(tiles.tile_row_tensor + tile_row)];
  const int64_t row0 = static_cast<int64_t>(tile_row - tensor.first_tile_row) * kTile;
  const int64_t elements =
      min(tensor.params.rows - row0, static_cast<int64_t>(kTile)) * tensor.params.cols;
  const int64_t begin = chunk * kChunk;
  if (begin >= elements)
    return;
  const uint16_t* input = tensor.params.input + row0 * tensor.params.cols + begin;
  const int64_t count = min(elements - begin, kChunk);
  const uint32_t lanes = reinterpret_cast<uintptr_t>(input) % 16 == 0
                             ? range_magnitudes<true>(input, count, threadIdx.x, kAmaxThreads)
                             : range_magnitudes<false>(input, count, threadIdx.x, kAmaxThreads);
  publish_block_amax(lanes, tensor.amax);
}

// The line amax pass (quant/fp8/detail/line_amax.h) of every tensor of a grouped kRowwise cast,
// over the same tile rows, top-down: each block `tiles_per_block` tiles of a tile row into its
// tensor's amaxes (kRows: some tensor wants its row amaxes).
template <bool kAllAligned, bool kRows>
__global__ void __launch_bounds__(kLineAmaxThreads, kLineAmaxMinBlocks)
    grouped_line_amax_kernel(const GroupedTiles tiles, unsigned int tiles_per_block) {
  static_assert(kLineAmaxCols == kTile, "the amax pass's column tiles are the cast's");
  const unsigned int groups = (tiles.col_tiles + tiles_per_block - 1) / tiles_per_block;
  const unsigned int tile_row = blockIdx.x / groups;
  const unsigned int first_tile = (blockIdx.x - tile_row * groups) * tiles_per_block;
  const unsigned int end_tile = min(first_tile + tiles_per_block, tiles.col_tiles);
  const TensorTiles& tensor = tiles.tensors[__ldg(tiles.tile_row_tensor + tile_row)];
  const KernelParams& p = tensor.params;
  const int64_t row0 = static_cast<int64_t>(tile_row - tensor.first_tile_row) * kTile;
  __shared__ LineAmaxShared merge;
  if (kAllAligned || tensor.aligned) {
    line_amax_block<true, kTile, kRows>(p.input, p.rows, p.cols, row0, first_tile, end_tile,
                                        p.row_amax_bits, p.col_amax_bits, merge);
  } else {
    line_amax_block<false, kTile, kRows>(p.input, p.rows, p.cols, row0, first_tile, end_tile,
                                         p.row_amax_bits, p.col_amax_bits, merge);
  }
}

// kRowwise's cast follows the line amax pass (or the fold of its column amaxes), whose results it
// reads only after its tile's loads (cast_tile): it may start while that kernel ends. It does not
// let the kernel after it start early (allow_dependent_launch): whatever follows starts once it
// has ended, so the next call's zeroing never meets its reads of the amaxes.
template <TileScaling kScaling, typename Argument>
void launch_cast_kernel(void (*kernel)(Argument), const Argument& argument, unsigned int blocks,
                        cudaStream_t stream) {
  if constexpr (kScaling == TileScaling::kRowwise) {
    launch_dependent(kernel, blocks, kThreads, stream, argument);
  } else {
    kernel<<<blocks, kThreads, 0, stream>>>(argument);
  }
}

// One tensor's cast, or the grouped cast of several.
template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAligned>
void launch_blocks(const KernelParams& params, unsigned int blocks, cudaStream_t stream) {
  launch_cast_kernel<kScaling>(tile_cast_kernel<kScaling, kFormat, kAligned>, params, blocks,
                               stream);
}
template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAligned>
void launch_blocks(const GroupedTiles& tiles, unsigned int blocks, cudaStream_t stream) {
  launch_cast_kernel<kScaling>(grouped_tile_cast_kernel<kScaling, kFormat, kAligned>, tiles, blocks,
                               stream);
}

template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, typename Params>
void launch_kernel(const Params& params, bool aligned, unsigned int blocks, cudaStream_t stream) {
  if (aligned) {
    launch_blocks<kScaling, kFormat, true>(params, blocks, stream);
  } else {
    launch_blocks<kScaling, kFormat, false>(params, blocks, stream);
  }
  CUDA_CHECK_LAUNCH();
}

template <typename Params>
void launch_scaling(TileScaling scaling, ElementFormat format, const Params& params, bool aligned,
                    unsigned int blocks, cudaStream_t stream) {
  switch (scaling) {
    case TileScaling::kTensorwise:
      if (format == ElementFormat::kE5M2) {
        launch_kernel<TileScaling::kTensorwise, __NV_E5M2>(params, aligned, blocks, stream);
      } else {
        launch_kernel<TileScaling::kTensorwise, __NV_E4M3>(params, aligned, blocks, stream);
      }
      return;
    case TileScaling::kVec128:
      launch_kernel<TileScaling::kVec128, __NV_E4M3>(params, aligned, blocks, stream);
      return;
    case TileScaling::kBlock128x128:
      launch_kernel<TileScaling::kBlock128x128, __NV_E4M3>(params, aligned, blocks, stream);
      return;
    case TileScaling::kRowwise:
      launch_kernel<TileScaling::kRowwise, __NV_E4M3>(params, aligned, blocks, stream);
      return;
  }
}

bool is_16_byte_aligned(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
}

KernelParams kernel_params(const TileCastArgs& args) {
  KernelParams params{};
  params.input = reinterpret_cast<const uint16_t*>(args.input);
  params.rows = args.rows;
  params.cols = args.cols;
  params.scale_rows = round_up(args.rows, kScaleRowAlignment);
  params.scale_cols = round_up(args.cols, kScaleRowAlignment);
  params.row_tiles = static_cast<unsigned int>(ceil_div(args.rows, kTile));
  params.col_tiles = static_cast<unsigned int>(ceil_div(args.cols, kTile));
  params.rowwise = args.rowwise;
  params.columnwise = args.columnwise;
  params.scale = args.scale;
  params.amax_record = args.amax_record;
  params.rowwise_scale_inv = args.rowwise_scale_inv;
  params.columnwise_scale_inv = args.columnwise_scale_inv;
  params.stacked_rowwise_scale_inv = args.stacked_rowwise_scale_inv;
  params.stacked_scale_stride = args.stacked_scale_stride;
  params.row_amax_bits = args.row_amax_bits;
  params.col_amax_bits = args.col_amax_bits;
  return params;
}

// The vector path needs every row of every copy to start on a 16-byte boundary.
bool takes_vector_path(const TileCastArgs& args) {
  return args.rows % 16 == 0 && args.cols % 16 == 0 && is_16_byte_aligned(args.input) &&
         is_16_byte_aligned(args.rowwise) && is_16_byte_aligned(args.columnwise);
}

// A launch's grid: `tiles` blocks, at most what a grid holds.
unsigned int grid_blocks(int64_t tiles, const std::string& what) {
  if (tiles > INT_MAX) {
    throw std::invalid_argument("FP8 cast: " + what + " needs " + std::to_string(tiles) +
                                " 128x128 tiles, more than one launch takes");
  }
  return static_cast<unsigned int>(tiles);
}

}  // namespace

void launch_tile_cast(const TileCastArgs& args, cudaStream_t stream) {
  const int64_t tiles = ceil_div(args.rows, kTile) * ceil_div(args.cols, kTile);
  const unsigned int blocks =
      grid_blocks(tiles, std::to_string(args.rows) + "x" + std::to_string(args.cols));
  launch_scaling(args.scaling, args.format, kernel_params(args), takes_vector_path(args), blocks,
                 stream);
}

GroupedTileCast::GroupedTileCast(const std::vector<TileCastArgs>& tensors,
                                 const std::vector<float*>& amaxes) {
  if (!amaxes.empty() && amaxes.size() != tensors.size()) {
    throw std::invalid_argument("GroupedTileCast: " + std::to_string(amaxes.size()) +
                                " amax outputs for " + std::to_string(tensors.size()) + " tensors");
  }
  std::vector<TensorTiles> described;
  std::vector<uint32_t> tile_row_tensor;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TileCastArgs& args = tensors[i];
    const TileCastArgs& first = tensors.front();
    if (args.rows <= 0 || args.cols != first.cols || args.format != first.format ||
        args.scaling != first.scaling) {
      throw std::invalid_argument(
          "GroupedTileCast: tensor " + std::to_string(i) + " (" + std::to_string(args.rows) + "x" +
          std::to_string(args.cols) +
          ") must have rows and share cols, format and scaling with tensor 0");
    }
    TensorTiles tensor{};
    tensor.params = kernel_params(args);
    tensor.amax = amaxes.empty() ? nullptr : amaxes[i];
    tensor.first_tile_row = static_cast<unsigned int>(tile_row_tensor.size());
    tensor.aligned = takes_vector_path(args);
    tile_row_tensor.insert(tile_row_tensor.end(), tensor.params.row_tiles,
                           static_cast<uint32_t>(i));
    described.push_back(tensor);
    aligned_ = aligned_ && tensor.aligned;
    line_rows_wanted_ = line_rows_wanted_ || args.row_amax_bits != nullptr;
  }
  if (!tensors.empty()) {
    scaling_ = tensors.front().scaling;
    format_ = tensors.front().format;
    col_tiles_ = static_cast<unsigned int>(ceil_div(tensors.front().cols, kTile));
  }
  tile_rows_ = static_cast<unsigned int>(tile_row_tensor.size());
  blocks_ = grid_blocks(static_cast<int64_t>(tile_rows_) * col_tiles_,
                        std::to_string(tensors.size()) + " tensors");
  tensors_table_ = tables_.add(described);
  tile_rows_table_ = tables_.add(tile_row_tensor);
}

void GroupedTileCast::upload(void* workspace, cudaStream_t stream) {
  if (blocks_ > 0)
    tables_.upload(workspace, stream, "GroupedTileCast");
}

namespace {

GroupedTiles grouped_tiles(const DeviceTables& tables, size_t tensors_table, size_t tile_rows_table,
                           unsigned int col_tiles, unsigned int tile_rows) {
  const char* context = "GroupedTileCast";
  return {tables.device_table<TensorTiles>(tensors_table, context),
          tables.device_table<uint32_t>(tile_rows_table, context), col_tiles, tile_rows};
}

}  // namespace

void GroupedTileCast::launch_cast(cudaStream_t stream) const {
  if (blocks_ == 0)
    return;
  launch_scaling(scaling_, format_,
                 grouped_tiles(tables_, tensors_table_, tile_rows_table_, col_tiles_, tile_rows_),
                 aligned_, blocks_, stream);
}

void GroupedTileCast::launch_line_amax(cudaStream_t stream) const {
  if (blocks_ == 0)
    return;
  const GroupedTiles tiles =
      grouped_tiles(tables_, tensors_table_, tile_rows_table_, col_tiles_, tile_rows_);
  // Several tiles a block as for one tensor (line_amax_tiles_per_block), where rows are wanted.
  const unsigned int tiles_per_block = line_amax_tiles_per_block(col_tiles_, line_rows_wanted_);
  const unsigned int blocks =
      tile_rows_ * ((col_tiles_ + tiles_per_block - 1) / tiles_per_block);  // <= blocks_
  const auto kernel = line_rows_wanted_ ? (aligned_ ? grouped_line_amax_kernel<true, true>
                                                    : grouped_line_amax_kernel<false, true>)
                                        : (aligned_ ? grouped_line_amax_kernel<true, false>
                                                    : grouped_line_amax_kernel<false, false>);
  // After the zeroing (launch_zero_line_amax), which the pass waits for before its first atomic.
  launch_dependent(kernel, blocks, kLineAmaxThreads, stream, tiles, tiles_per_block);
}

void GroupedTileCast::launch_amax(cudaStream_t stream) const {
  if (blocks_ == 0)
    return;
  grouped_amax_kernel<<<blocks_, kAmaxThreads, 0, stream>>>(
      grouped_tiles(tables_, tensors_table_, tile_rows_table_, col_tiles_, tile_rows_));
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope::detail
