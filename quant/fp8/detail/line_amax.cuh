#pragma once
// The device side of the line amax pass (quant/fp8/detail/line_amax.h), shared by the one-tensor
// kernel there and the grouped one in quant/fp8/detail/tile_cast.cu: one thread block's share of
// every row's and every column's max |x| (NaN ignored), published with one atomic max a line.

#include <cstdint>

#include "quant/detail/dependent_launch.cuh"
#include "quant/detail/fp8_device.cuh"

namespace gemmscope::detail {

// A block covers a band of rows and one or more 128-column tiles of it, 16 threads a row (a
// 16-byte chunk each, so a half warp reads 256 contiguous bytes), 16 rows a step, kLineAmaxLoads
// steps' loads issued together. Each tile's column maxima go out with one atomic max a column;
// each row's maximum over all the block's tiles goes out once, at the end. Why several tiles a
// block: the blocks of one band run at about the same time, and their row atomics all land on the
// band's few hundred addresses, which serialize in L2. On an H200 (2026-11-27, a scratch
// benchmark of this pass on 15872 x 16384 BF16), one tile a block took 189 µs with row amaxes and
// 126 µs without; four tiles a block of 128-row bands took 134 µs.
constexpr int kLineAmaxThreads = 256;
constexpr int kLineAmaxCols = 128;
constexpr int kLineAmaxLoads = 8;
constexpr int kLineAmaxRowStep = kLineAmaxThreads / (kLineAmaxCols / 8);  // 16 rows a step
// The kernels' __launch_bounds__ minimum: with it (nvcc 13.0, sm_90a) ptxas issues a round's 8
// loads before the first is used; without it, it interleaves them with their use, two in flight.
constexpr int kLineAmaxMinBlocks = 1;

// The 8 BF16 of chunk `chunk` of row `row` (zeros past the tensor: they raise no amax). Aligned:
// cols % 8 == 0, so a chunk is wholly in or out and one 16-byte load; otherwise one at a time.
template <bool kAligned>
__device__ __forceinline__ uint4 line_amax_load(const uint16_t* __restrict__ input, int64_t rows,
                                                int64_t cols, int64_t row, int64_t col) {
  if (row >= rows || col >= cols)
    return make_uint4(0, 0, 0, 0);
  const uint16_t* source = input + row * cols + col;
  if constexpr (kAligned) {
    return __ldg(reinterpret_cast<const uint4*>(source));
  } else {
    uint32_t words[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const uint32_t element = col + i < cols ? __ldg(source + i) : 0u;
      words[i / 2] |= element << (16 * (i % 2));
    }
    return make_uint4(words[0], words[1], words[2], words[3]);
  }
}

// Where a block of the pass merges its warps' column maxima, two of them used in turn (so one
// barrier a tile orders a tile's reads before the writes of the tile after next); the kernel owns
// them (a kernel that inlines both the aligned and the unaligned path must not get two pairs).
using LineAmaxShared = uint4[2][kLineAmaxThreads / 32][kLineAmaxCols / 8];

namespace line_amax {

constexpr unsigned int kFullWarp = 0xffffffffu;

// A tile's column maxima (thread t holds chunk t % 16 of its rows, as max_magnitudes() lanes),
// merged with the other half warp's rows, then across the warps through `merge`, then one atomic
// max a column.
__device__ __forceinline__ void publish_columns(
    uint4 columns, int64_t col0, int64_t cols, uint32_t* col_amax_bits,
    uint4 (&merge)[kLineAmaxThreads / 32][kLineAmaxCols / 8]) {
  // Finished lanes (plain magnitudes, so an unsigned lane max orders them).
  uint4 lanes = make_uint4(finish_magnitudes(columns.x), finish_magnitudes(columns.y),
                           finish_magnitudes(columns.z), finish_magnitudes(columns.w));
  lanes = make_uint4(__vmaxu2(lanes.x, __shfl_xor_sync(kFullWarp, lanes.x, 16)),
                     __vmaxu2(lanes.y, __shfl_xor_sync(kFullWarp, lanes.y, 16)),
                     __vmaxu2(lanes.z, __shfl_xor_sync(kFullWarp, lanes.z, 16)),
                     __vmaxu2(lanes.w, __shfl_xor_sync(kFullWarp, lanes.w, 16)));
  // Lane l and l ^ 16 hold the same chunk, l % 16, and now agree: lanes 0-15 publish.
  const int thread = threadIdx.x;
  const int lane = thread % 32;
  if (lane < kLineAmaxCols / 8)
    merge[thread / 32][lane] = lanes;
  __syncthreads();
  if (thread < kLineAmaxCols) {
    // Thread j finishes column col0 + j: chunk j / 8, element j % 8 (word (j % 8) / 2, half j % 2).
    const int j = thread;
    uint32_t merged = 0;
#pragma unroll
    for (int w = 0; w < kLineAmaxThreads / 32; ++w) {
      const uint4 v = merge[w][j / 8];
      const int word = (j % 8) / 2;
      const uint32_t pair = word == 0 ? v.x : word == 1 ? v.y : word == 2 ? v.z : v.w;
      merged = max(merged, j % 2 == 0 ? pair & 0xffffu : pair >> 16);
    }
    const int64_t column = col0 + j;
    if (column < cols && merged != 0)
      atomicMax(col_amax_bits + column, merged << 16);
  }
}

// Transpose butterfly over the 16 lanes of a half warp: at each offset a lane sends its partner
// the half of its values the partner keeps, and keeps the max of the other half, so after offsets
// 8, 4, 2 and 1 lane l holds the half warp's max of value l >> log2(16 / kCount): kCount - 1
// shuffles, where a shuffle a value would take 4 kCount.
template <int kCount, int kOffset>
__device__ __forceinline__ uint32_t transpose_max(uint32_t (&v)[kCount], int lane16) {
  if constexpr (kOffset == 0) {
    return v[0];
  } else if constexpr (kCount == 1) {
    v[0] = max(v[0], __shfl_xor_sync(kFullWarp, v[0], kOffset));
    return transpose_max<1, kOffset / 2>(v, lane16);
  } else {
    constexpr int kHalf = kCount / 2;
    const bool upper = (lane16 & kOffset) != 0;
    uint32_t kept[kHalf];
#pragma unroll
    for (int i = 0; i < kHalf; ++i) {
      const uint32_t send = upper ? v[i] : v[i + kHalf];
      const uint32_t keep = upper ? v[i + kHalf] : v[i];
      kept[i] = max(keep, __shfl_xor_sync(kFullWarp, send, kOffset));
    }
    return transpose_max<kHalf, kOffset / 2>(kept, lane16);
  }
}

}  // namespace line_amax

// Rows [row0, row0 + kBandRows) and column tiles [first_tile, end_tile) (128 columns each) of
// the BF16 [rows, cols] `input`, as far as they exist, into row_amax_bits[row] (kRows only) and
// col_amax_bits[col] (either may be null): the block's kLineAmaxThreads threads must all call it,
// once. Without kRows the rounds of loads are not unrolled and keep no row partials, so a
// columns-only pass needs fewer registers.
// Launched with launch_dependent() after the kernel that zeroes the amaxes, it waits for that one
// only before its first atomic; and it lets the cast launched after it (which reads the amaxes
// only after its own loads) start as soon as its last blocks have started.
template <bool kAligned, int kBandRows, bool kRows>
__device__ __forceinline__ void line_amax_block(const uint16_t* __restrict__ input, int64_t rows,
                                                int64_t cols, int64_t row0, unsigned int first_tile,
                                                unsigned int end_tile, uint32_t* row_amax_bits,
                                                uint32_t* col_amax_bits, LineAmaxShared& merge) {
  constexpr int kChunkElements = 8;  // BF16 per 16-byte chunk
  constexpr int kChunksPerRow = kLineAmaxCols / kChunkElements;
  constexpr int kRowStep = kLineAmaxRowStep;
  constexpr int kRowValues = kBandRows / kRowStep;  // rows of the band a thread loads
  static_assert(kChunksPerRow == 16 && kRowStep == 16, "a half warp a row");
  static_assert(kBandRows % (kRowStep * kLineAmaxLoads) == 0, "whole rounds of loads a band");
  static_assert(kRowValues <= 16 && (kRowValues & (kRowValues - 1)) == 0, "a butterfly's values");
  allow_dependent_launch();
  const int thread = threadIdx.x;
  const int chunk = thread % kChunksPerRow;
  const int64_t first_row = row0 + thread / kChunksPerRow;

  // Row k of the thread's (first_row + 16 k): its chunks' running max over the block's tiles, as
  // max_magnitudes() lanes (one max a chunk; finished once, at the end).
  [[maybe_unused]] uint32_t row_lanes[kRows ? kRowValues : 1];
#pragma unroll
  for (int k = 0; k < (kRows ? kRowValues : 1); ++k)
    row_lanes[k] = 0;
  for (unsigned int tile = first_tile; tile < end_tile; ++tile) {
    const int64_t col0 = static_cast<int64_t>(tile) * kLineAmaxCols;
    const int64_t col = col0 + chunk * kChunkElements;
    // The running max of the thread's 8 columns over its rows of the band.
    uint4 columns = make_uint4(0, 0, 0, 0);
#pragma unroll(kRows ? kRowValues / kLineAmaxLoads : 1)
    for (int round = 0; round < kRowValues / kLineAmaxLoads; ++round) {
      uint4 loaded[kLineAmaxLoads];
#pragma unroll
      for (int i = 0; i < kLineAmaxLoads; ++i) {
        const int64_t row = first_row + (round * kLineAmaxLoads + i) * kRowStep;
        loaded[i] = line_amax_load<kAligned>(input, rows, cols, row, col);
      }
#pragma unroll
      for (int i = 0; i < kLineAmaxLoads; ++i) {
        const uint4& c = loaded[i];
        if constexpr (kRows) {
          uint32_t& row = row_lanes[round * kLineAmaxLoads + i];
          row = max_magnitudes(row, max_magnitudes(c));
        }
        columns = make_uint4(max_magnitudes(columns.x, c.x), max_magnitudes(columns.y, c.y),
                             max_magnitudes(columns.z, c.z), max_magnitudes(columns.w, c.w));
      }
    }
    wait_for_prior_kernel();  // the zeroing, before the first atomic (at once after that)
    if (col_amax_bits != nullptr)
      line_amax::publish_columns(columns, col0, cols, col_amax_bits,
                                 merge[(tile - first_tile) % 2]);
  }
  if constexpr (!kRows) {
    return;
  } else {
    wait_for_prior_kernel();
    if (row_amax_bits == nullptr)
      return;
    // Rows: the half warp's 16 chunks of each row merged by the butterfly, so that lane l holds row
    // value l >> shift, and one lane of each row publishes it with one atomic max.
    constexpr int kShift = kRowValues == 16  ? 0
                           : kRowValues == 8 ? 1
                           : kRowValues == 4 ? 2
                           : kRowValues == 2 ? 3
                                             : 4;
    uint32_t bits[kRowValues];
#pragma unroll
    for (int k = 0; k < kRowValues; ++k)
      bits[k] = lanes_to_amax_bits(finish_magnitudes(row_lanes[k]));
    const uint32_t row_bits = line_amax::transpose_max<kRowValues, 8>(bits, chunk);
    const int64_t row = first_row + static_cast<int64_t>(chunk >> kShift) * kRowStep;
    if ((chunk & ((1 << kShift) - 1)) == 0 && row < rows && row_bits != 0)
      atomicMax(row_amax_bits + row, row_bits);
  }
}

// The column tiles a block of the pass takes: with row amaxes, 2 where rows are 32-63 tiles wide
// and 4 where wider (so a row gets at most a quarter as many atomics as it has tiles); one tile
// without. Fewer blocks to share a wave is what more tiles cost: measured on the H200, 4 tiles
// were 2% slower than 2 on 4096 columns, 4-7% faster on 12288 and 16384.
inline unsigned int line_amax_tiles_per_block(int64_t col_tiles, bool rows_wanted) {
  if (!rows_wanted || col_tiles < 32)
    return 1;
  return col_tiles < 64 ? 2 : 4;
}

}  // namespace gemmscope::detail
