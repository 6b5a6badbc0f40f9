#pragma once
// The device side of the line amax pass (quant/fp8/detail/line_amax.h), shared by the one-tensor
// kernel there and the grouped one in quant/fp8/detail/tile_cast.cu: one thread block's share of
// every row's and every column's max |x| (NaN ignored), published with one atomic max a line.

#include <cstdint>

#include "quant/detail/fp8_device.cuh"

namespace gemmscope::detail {

// A block covers 128 columns of a band of rows, 16 threads a row (a 16-byte chunk each, so a half
// warp reads 256 contiguous bytes), 16 rows a step, kLineAmaxLoads steps' loads issued together.
// Its rows' amaxes and its columns' then go out with one atomic max a line, so a band of b rows
// costs one column atomic per b elements.
constexpr int kLineAmaxThreads = 256;
constexpr int kLineAmaxCols = 128;
constexpr int kLineAmaxLoads = 8;

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

// Where a block of the pass merges its warps' column maxima; the kernel owns it (a kernel that
// inlines both the aligned and the unaligned path must not get two).
using LineAmaxShared = uint4[kLineAmaxThreads / 32][kLineAmaxCols / 8];

// Rows [row0, row0 + kBandRows) and columns [col0, col0 + 128) of the BF16 [rows, cols] `input`,
// as far as they exist, into row_amax_bits[row] and col_amax_bits[col] (either may be null): the
// block's kLineAmaxThreads threads must all call it, once (`block_columns` is not reusable
// without a barrier).
template <bool kAligned, int kBandRows>
__device__ __forceinline__ void line_amax_block(const uint16_t* __restrict__ input, int64_t rows,
                                                int64_t cols, int64_t row0, int64_t col0,
                                                uint32_t* row_amax_bits, uint32_t* col_amax_bits,
                                                LineAmaxShared& block_columns) {
  constexpr int kWarps = kLineAmaxThreads / 32;
  constexpr int kChunkElements = 8;  // BF16 per 16-byte chunk
  constexpr int kChunksPerRow = kLineAmaxCols / kChunkElements;
  constexpr int kRowStep = kLineAmaxThreads / kChunksPerRow;
  constexpr int kLoadsInFlight = kLineAmaxLoads;
  constexpr unsigned int kFullWarp = 0xffffffffu;
  static_assert(kChunksPerRow == 16 && kRowStep == 16, "a half warp a row");
  static_assert(kBandRows % (kRowStep * kLoadsInFlight) == 0, "whole rounds of loads a band");
  const int thread = threadIdx.x;
  const int chunk = thread % kChunksPerRow;
  const int64_t col = col0 + chunk * kChunkElements;
  const int64_t first_row = row0 + thread / kChunksPerRow;

  // The running max of the thread's 8 columns over its rows, as max_magnitudes() lanes.
  uint4 columns = make_uint4(0, 0, 0, 0);
  for (int round = 0; round < kBandRows / (kRowStep * kLoadsInFlight); ++round) {
    uint4 loaded[kLoadsInFlight];
#pragma unroll
    for (int i = 0; i < kLoadsInFlight; ++i) {
      const int64_t row = first_row + (round * kLoadsInFlight + i) * kRowStep;
      loaded[i] = line_amax_load<kAligned>(input, rows, cols, row, col);
    }
#pragma unroll
    for (int i = 0; i < kLoadsInFlight; ++i) {
      const uint4& c = loaded[i];
      if (row_amax_bits != nullptr) {
        // The row's max over the half warp that holds it, then one atomic a row.
        uint32_t bits = lanes_to_amax_bits(finish_magnitudes(max_magnitudes(c)));
#pragma unroll
        for (int offset = 1; offset < kChunksPerRow; offset *= 2)
          bits = max(bits, __shfl_xor_sync(kFullWarp, bits, offset));
        const int64_t row = first_row + (round * kLoadsInFlight + i) * kRowStep;
        if (chunk == 0 && row < rows && bits != 0)
          atomicMax(row_amax_bits + row, bits);
      }
      columns = make_uint4(max_magnitudes(columns.x, c.x), max_magnitudes(columns.y, c.y),
                           max_magnitudes(columns.z, c.z), max_magnitudes(columns.w, c.w));
    }
  }
  if (col_amax_bits == nullptr)
    return;

  // Columns: finished lanes (plain magnitudes, so an unsigned lane max orders them), merged with
  // the other half warp's rows, then across the warps through shared memory.
  uint4 lanes = make_uint4(finish_magnitudes(columns.x), finish_magnitudes(columns.y),
                           finish_magnitudes(columns.z), finish_magnitudes(columns.w));
  lanes = make_uint4(__vmaxu2(lanes.x, __shfl_xor_sync(kFullWarp, lanes.x, 16)),
                     __vmaxu2(lanes.y, __shfl_xor_sync(kFullWarp, lanes.y, 16)),
                     __vmaxu2(lanes.z, __shfl_xor_sync(kFullWarp, lanes.z, 16)),
                     __vmaxu2(lanes.w, __shfl_xor_sync(kFullWarp, lanes.w, 16)));
  // Lane l and l ^ 16 hold the same chunk, l % 16, and now agree: lanes 0-15 publish.
  const int lane = thread % 32;
  if (lane < kChunksPerRow)
    block_columns[thread / 32][lane] = lanes;
  __syncthreads();
  if (thread < kLineAmaxCols) {
    // Thread j finishes column col0 + j: chunk j / 8, element j % 8 (word (j % 8) / 2, half j % 2).
    const int j = thread;
    uint32_t merged = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const uint4 v = block_columns[w][j / kChunkElements];
      const int word = (j % kChunkElements) / 2;
      const uint32_t pair = word == 0 ? v.x : word == 1 ? v.y : word == 2 ? v.z : v.w;
      merged = max(merged, j % 2 == 0 ? pair & 0xffffu : pair >> 16);
    }
    const int64_t column = col0 + j;
    if (column < cols && merged != 0)
      atomicMax(col_amax_bits + column, merged << 16);
  }
}

}  // namespace gemmscope::detail
