#pragma once
// The tile walk the MXFP8 and NVFP4 quantize kernels share. A CTA of 256 threads owns a tile of
// 128 rows x 64 columns of the BF16 input (16 KiB) and reads it exactly once, in 16-byte
// vectors of 8 elements, four per thread: thread t holds row t / 8 + 32 * i, elements
// 8 * (t % 8) .. +7 of the tile, for i = 0..3. A warp thus reads four full 128-byte row
// segments per load (coalesced), and the 4 or 2 lanes that hold one 32- or 16-element block of
// a row are neighbours, so a block's amax is two or one shuffle away. The columnwise copy is
// made from the same tile, staged in shared memory: a thread walks one column down.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace gemmscope::detail {

constexpr int kTileThreads = 256;
constexpr int kTileRows = 128;
constexpr int kTileCols = 64;
constexpr int kVectorElements = 8;
constexpr int kVectorsPerTileRow = kTileCols / kVectorElements;                 // 8
constexpr int kLoadsPerThread = kTileRows * kVectorsPerTileRow / kTileThreads;  // 4
constexpr int kRowsPerLoad = kTileThreads / kVectorsPerTileRow;                 // 32

// Where a CTA's tile lies and how much of it is inside the tensor.
struct TilePosition {
  int64_t row0;
  int64_t col0;
  int valid_rows;
  int valid_cols;
};

__device__ inline TilePosition tile_position(int64_t tile, int64_t col_tiles, int64_t rows,
                                             int64_t cols) {
  TilePosition position;
  position.row0 = tile / col_tiles * kTileRows;
  position.col0 = tile % col_tiles * kTileCols;
  const int64_t rows_left = rows - position.row0;
  const int64_t cols_left = cols - position.col0;
  position.valid_rows = static_cast<int>(rows_left < kTileRows ? rows_left : kTileRows);
  position.valid_cols = static_cast<int>(cols_left < kTileCols ? cols_left : kTileCols);
  return position;
}

// Row (within the tile) of load i of this thread, and the first column of its vector.
__device__ inline int load_row(int i) {
  return static_cast<int>(threadIdx.x) / 8 + kRowsPerLoad * i;
}
__device__ inline int load_col() {
  return static_cast<int>(threadIdx.x) % 8 * kVectorElements;
}

__host__ __device__ inline float bf16_bits_to_float(uint32_t bits16) {
  const uint32_t bits = bits16 << 16;
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

// Element k (0..7) of an 8-element BF16 vector, as raw bits. Little endian: element 2j is the
// low half of word j.
__device__ inline uint32_t bf16_bits_of(const uint4& vector, int k) {
  const uint32_t word = k < 2 ? vector.x : k < 4 ? vector.y : k < 6 ? vector.z : vector.w;
  return (k & 1) != 0 ? word >> 16 : word & 0xFFFFu;
}

// max |x| over the 8 elements, as BF16 bits of the magnitude. Comparing magnitudes as unsigned
// integers orders them like the values and puts NaN above inf above every finite value, so a
// NaN or inf anywhere shows in the result.
__device__ inline uint32_t bf16_abs_max_bits(const uint4& vector) {
  constexpr uint32_t kMagnitudes = 0x7FFF7FFFu;
  uint32_t pair = __vmaxu2(__vmaxu2(vector.x & kMagnitudes, vector.y & kMagnitudes),
                           __vmaxu2(vector.z & kMagnitudes, vector.w & kMagnitudes));
  const uint32_t low = pair & 0xFFFFu;
  const uint32_t high = pair >> 16;
  return low > high ? low : high;
}

// BF16 bits of a magnitude that is inf or NaN.
__host__ __device__ inline bool bf16_magnitude_not_finite(uint32_t magnitude_bits) {
  return magnitude_bits >= 0x7F80u;
}

}  // namespace gemmscope::detail
