#include "quant/detail/fp8_tile_cast.h"

#include <cuda_fp8.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "quant/cuda_check.h"
#include "quant/detail/fp8_device.cuh"
#include "quant/fp8_format.h"
#include "quant/fp8_scale_layout.h"
#include "quant/fp8_scale_policy.h"

namespace gemmscope::detail {
namespace {

constexpr int kTile = 128;  // the block size of both block recipes, so one tile serves all
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kChunkElements = 8;  // BF16 per 16-byte chunk
constexpr int kChunksPerRow = kTile / kChunkElements;

struct KernelParams {
  const uint16_t* input;
  int64_t rows;
  int64_t cols;
  int64_t row_tiles;
  int64_t col_tiles;
  uint8_t* rowwise;
  uint8_t* columnwise;
  const float* scale;
  float* amax_record;
  float* rowwise_scale_inv;
  float* columnwise_scale_inv;
};

// Offset, in BF16 elements, of 16-byte chunk `chunk` of tile row `row`. Chunks are XOR-swizzled
// by (row / 16) % 8, which gives each quarter warp 8 distinct 16-byte bank groups in all three
// access patterns: 8 consecutive chunks of a row (load), chunk pairs of a row (rowwise pass), and
// one chunk of 8 rows 16 apart (columnwise pass). No bank conflicts, no padding.
__device__ __forceinline__ int tile_offset(int row, int chunk) {
  return row * kTile + (chunk ^ ((row >> 4) & 7)) * kChunkElements;
}

// Eight BF16 at input[row, col..col+7]; zeros where outside the tensor (they never reach an
// output and cannot raise an amax). Aligned mode: cols % 16 == 0, so a chunk is wholly in or out.
template <bool kAligned>
__device__ __forceinline__ uint4 load_chunk(const KernelParams& p, int64_t row, int64_t col) {
  uint4 chunk = make_uint4(0, 0, 0, 0);
  if (row >= p.rows || col >= p.cols)
    return chunk;
  const uint16_t* source = p.input + row * p.cols + col;
  if constexpr (kAligned) {
    chunk = __ldg(reinterpret_cast<const uint4*>(source));
  } else {
    uint32_t words[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < kChunkElements; ++i) {
      const uint32_t element = (col + i < p.cols) ? __ldg(source + i) : 0u;
      words[i / 2] |= element << (16 * (i % 2));
    }
    chunk = make_uint4(words[0], words[1], words[2], words[3]);
  }
  return chunk;
}

// Writes 16 bytes to line[first .. first+15], clipped to `limit` (aligned mode: never clipped
// mid-vector, since the line length is a multiple of 16).
template <bool kAligned>
__device__ __forceinline__ void store_16_bytes(uint8_t* line, int64_t first, int64_t limit,
                                               uint4 bytes) {
  if (first >= limit)
    return;
  if constexpr (kAligned) {
    *reinterpret_cast<uint4*>(line + first) = bytes;
  } else {
    const uint32_t words[4] = {bytes.x, bytes.y, bytes.z, bytes.w};
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      if (first + i < limit)
        line[first + i] = static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
    }
  }
}

// The BF16 pair (column `column` of row a, the same column of row b) from two 4-element row
// slices, as one word: row a in the low half.
template <int kColumn>
__device__ __forceinline__ uint32_t column_pair(uint2 row_a, uint2 row_b) {
  const uint32_t a = kColumn < 2 ? row_a.x : row_a.y;
  const uint32_t b = kColumn < 2 ? row_b.x : row_b.y;
  return __byte_perm(a, b, kColumn % 2 == 0 ? 0x5410 : 0x7632);
}

// Sixteen FP8 bytes of column `kColumn` over the 16 rows held in `rows`.
template <int kColumn, __nv_fp8_interpretation_t kFormat>
__device__ __forceinline__ uint4 quantize_column(const uint2 (&rows)[16], float scale) {
  uint32_t words[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    words[w] =
        quantize_bf16_quad<kFormat>(column_pair<kColumn>(rows[4 * w], rows[4 * w + 1]),
                                    column_pair<kColumn>(rows[4 * w + 2], rows[4 * w + 3]), scale);
  }
  return make_uint4(words[0], words[1], words[2], words[3]);
}

__device__ __forceinline__ float block_scale_from_amax_bits(uint32_t amax_bits) {
  return scale_from_amax(__uint_as_float(amax_bits), kE4M3MaxFinite, /*power_of_2=*/true);
}

template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat, bool kAligned>
__global__ void __launch_bounds__(kThreads) tile_cast_kernel(const KernelParams p) {
  __shared__ alignas(16) uint16_t tile[kTile * kTile];
  __shared__ uint32_t warp_amax_bits[kWarps];

  const int64_t tile_row = blockIdx.x / p.col_tiles;
  const int64_t tile_col = blockIdx.x % p.col_tiles;
  const int64_t row0 = tile_row * kTile;
  const int64_t col0 = tile_col * kTile;
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
    uint4 loaded[kLoads];
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      loaded[i] =
          load_chunk<kAligned>(p, row0 + first_row + i * kRowStep, col0 + chunk * kChunkElements);
    }
    uint32_t lanes = 0;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      *reinterpret_cast<uint4*>(&tile[tile_offset(first_row + i * kRowStep, chunk)]) = loaded[i];
      if (needs_tile_amax)
        lanes = max_abs_lanes(lanes, loaded[i]);
    }
    if (needs_tile_amax) {
      const uint32_t bits = __reduce_max_sync(0xffffffffu, lanes_to_amax_bits(lanes));
      if (lane == 0)
        warp_amax_bits[thread / 32] = bits;
    }
  }
  __syncthreads();

  uint32_t tile_amax_bits = 0;
  if (needs_tile_amax) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      tile_amax_bits = max(tile_amax_bits, warp_amax_bits[w]);
  }
  if constexpr (kScaling == TileScaling::kTensorwise) {
    if (p.amax_record != nullptr && thread == 0 && tile_amax_bits != 0) {
      atomicMax(reinterpret_cast<unsigned int*>(p.amax_record), tile_amax_bits);
    }
  }

  float block_scale = 1.0f;
  if constexpr (kScaling == TileScaling::kBlock128x128) {
    block_scale = block_scale_from_amax_bits(tile_amax_bits);
    if (thread == 0) {
      const float scale_inv = scale_inverse(block_scale);
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

  // Phase 2: rowwise copy. 8 threads cover a tile row, 16 columns (one 16-byte store) each.
  if (p.rowwise != nullptr) {
    constexpr int kThreadsPerRow = kTile / 16;
    constexpr int kRowStep = kThreads / kThreadsPerRow;
    const int group = thread % kThreadsPerRow;
    const int first_row = thread / kThreadsPerRow;
    const int64_t col = col0 + group * 16;
    // Groups 4..7 read their high chunk first, so a quarter warp's 8 reads cover all 8 bank
    // groups (chunks 0,2,4,6,9,11,13,15, then the others).
    const bool high_first = (group & 4) != 0;
    const int first_chunk = 2 * group + (high_first ? 1 : 0);
#pragma unroll
    for (int i = 0; i < kTile / kRowStep; ++i) {
      const int r = first_row + i * kRowStep;
      const int64_t row = row0 + r;
      const uint4 first = *reinterpret_cast<const uint4*>(&tile[tile_offset(r, first_chunk)]);
      const uint4 second = *reinterpret_cast<const uint4*>(&tile[tile_offset(r, first_chunk ^ 1)]);
      const uint4 low = high_first ? second : first;
      const uint4 high = high_first ? first : second;

      float scale = kScaling == TileScaling::kBlock128x128 ? block_scale : tensor_scale;
      if constexpr (kScaling == TileScaling::kVec128) {
        uint32_t bits = lanes_to_amax_bits(max_abs_lanes(max_abs_lanes(0u, low), high));
#pragma unroll
        for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
          bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, offset));
        }
        scale = block_scale_from_amax_bits(bits);
        if (group == 0 && row < round_up(p.rows, kScaleRowAlignment)) {
          p.rowwise_scale_inv[vec128_scale_index(row, tile_col, p.rows)] =
              row < p.rows ? scale_inverse(scale) : kScalePadding;
        }
      }
      const uint4 bytes = make_uint4(quantize_bf16_quad<kFormat>(low.x, low.y, scale),
                                     quantize_bf16_quad<kFormat>(low.z, low.w, scale),
                                     quantize_bf16_quad<kFormat>(high.x, high.y, scale),
                                     quantize_bf16_quad<kFormat>(high.z, high.w, scale));
      if (row < p.rows)
        store_16_bytes<kAligned>(p.rowwise + row * p.cols, col, p.cols, bytes);
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

    float scales[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      scales[j] = kScaling == TileScaling::kBlock128x128 ? block_scale : tensor_scale;
    }
    if constexpr (kScaling == TileScaling::kVec128) {
      uint32_t lanes_01 = 0;  // columns 0 and 1 of the slice
      uint32_t lanes_23 = 0;  // columns 2 and 3
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        lanes_01 = max_abs_lanes(lanes_01, rows[k].x);
        lanes_23 = max_abs_lanes(lanes_23, rows[k].y);
      }
#pragma unroll
      for (int offset = 1; offset < kRowGroups; offset *= 2) {
        lanes_01 = __vmaxu2(lanes_01, __shfl_xor_sync(0xffffffffu, lanes_01, offset));
        lanes_23 = __vmaxu2(lanes_23, __shfl_xor_sync(0xffffffffu, lanes_23, offset));
      }
      const uint32_t amax_bits[4] = {lanes_01 << 16, lanes_01 & 0xffff0000u, lanes_23 << 16,
                                     lanes_23 & 0xffff0000u};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        scales[j] = block_scale_from_amax_bits(amax_bits[j]);
        const int64_t col = col0 + quad * 4 + j;
        if (group == 0 && col < round_up(p.cols, kScaleRowAlignment)) {
          p.columnwise_scale_inv[vec128_scale_index(col, tile_row, p.cols)] =
              col < p.cols ? scale_inverse(scales[j]) : kScalePadding;
        }
      }
    }

    const int64_t first_row = row0 + group * 16;
    const int64_t col = col0 + quad * 4;
    const uint4 column_bytes[4] = {
        quantize_column<0, kFormat>(rows, scales[0]), quantize_column<1, kFormat>(rows, scales[1]),
        quantize_column<2, kFormat>(rows, scales[2]), quantize_column<3, kFormat>(rows, scales[3])};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (col + j < p.cols) {
        store_16_bytes<kAligned>(p.columnwise + (col + j) * p.rows, first_row, p.rows,
                                 column_bytes[j]);
      }
    }
  }
}

template <TileScaling kScaling, __nv_fp8_interpretation_t kFormat>
void launch_kernel(const KernelParams& params, bool aligned, unsigned int blocks,
                   cudaStream_t stream) {
  if (aligned) {
    tile_cast_kernel<kScaling, kFormat, true><<<blocks, kThreads, 0, stream>>>(params);
  } else {
    tile_cast_kernel<kScaling, kFormat, false><<<blocks, kThreads, 0, stream>>>(params);
  }
  CUDA_CHECK_LAUNCH();
}

bool is_16_byte_aligned(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
}

}  // namespace

void launch_tile_cast(const TileCastArgs& args, cudaStream_t stream) {
  KernelParams params{};
  params.input = reinterpret_cast<const uint16_t*>(args.input);
  params.rows = args.rows;
  params.cols = args.cols;
  params.row_tiles = ceil_div(args.rows, kTile);
  params.col_tiles = ceil_div(args.cols, kTile);
  params.rowwise = args.rowwise;
  params.columnwise = args.columnwise;
  params.scale = args.scale;
  params.amax_record = args.amax_record;
  params.rowwise_scale_inv = args.rowwise_scale_inv;
  params.columnwise_scale_inv = args.columnwise_scale_inv;

  const int64_t tiles = params.row_tiles * params.col_tiles;
  if (tiles > INT_MAX) {
    throw std::invalid_argument("FP8 cast: " + std::to_string(args.rows) + "x" +
                                std::to_string(args.cols) + " needs " + std::to_string(tiles) +
                                " 128x128 tiles, more than one launch takes");
  }
  // The vector path needs every row of every copy to start on a 16-byte boundary.
  const bool aligned = args.rows % 16 == 0 && args.cols % 16 == 0 &&
                       is_16_byte_aligned(args.input) && is_16_byte_aligned(args.rowwise) &&
                       is_16_byte_aligned(args.columnwise);
  const auto blocks = static_cast<unsigned int>(tiles);

  switch (args.scaling) {
    case TileScaling::kTensorwise:
      if (args.format == ElementFormat::kE5M2) {
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
  }
}

}  // namespace gemmscope::detail
