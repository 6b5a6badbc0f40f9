#pragma once
// The tile walk the MXFP8 and NVFP4 quantize kernels share. A CTA of 256 threads owns a tile of
// 128 rows x 64 columns of the BF16 input (16 KiB) and reads it exactly once, in 16-byte
// vectors of 8 elements, four per thread: lane l of warp w holds row 16 * w + 4 * i + l / 8,
// elements 8 * (l % 8) .. +7 of the tile, for i = 0..3. A warp thus reads four full 128-byte
// row segments per load (coalesced); the 4 or 2 lanes that hold one 32- or 16-element block of
// a row are neighbours, so a block's amax is two or one shuffle away; and a warp holds 16 whole
// rows, so a 16x16 block is in one warp (its 32 vectors are the four loads of eight lanes) and
// its amax is three shuffles away.
//
// The columnwise copy is made from the same tile, staged in shared memory as 32-bit words (two
// neighbouring columns of one row). Thread t takes the column pair p = 4 * (t / 32) + (t % 32) / 8
// over the 16 rows 16 * (t % 8) .. +15: eight neighbouring lanes hold one column pair's 128 rows,
// so the columnwise rows they write (the 16-row runs of two columns) are 8 neighbouring pieces
// of two rows of the transposed copy, and every warp store covers whole row segments. The words
// of a tile row are XOR-swizzled by 4 * ((row / 16) % 8): the eight lanes of one column pair then
// read eight different banks, the staging stores (8 lanes per row) stay conflict-free, and the
// swizzle keeps a 16-byte vector in one piece.
//
// A kernel either gives each CTA one tile (MXFP8, row-major in blockIdx.x), or walks the tiles
// with fewer CTAs than tiles (NVFP4, limit_data_ctas): CTA b then takes tiles b, b + data_ctas,
// ... of the walk (TileCursor), so its set-up work is paid once and it can load the next tile
// while it converts this one. The walk takes the tile rows bottom-up, each left to right: NVFP4's
// amax pass reads the tensor top-down just before, so the rows it read last, the likeliest to be
// still in L2, are the first the quantize pass reads. CTAs after the data CTAs write the scale
// buffers' padding (detail/swizzled_padding.cuh). A grouped launch (detail/grouped_tiles.cuh)
// runs the same tile work over every group's tiles, each group a tensor of its own.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "quant/detail/launch_checks.h"
#include "quant/detail/swizzled_padding.cuh"
#include "quant/float_bits.h"
#include "quant/operand_copies.h"

namespace gemmscope::detail {

constexpr int kTileThreads = 256;
constexpr int kTileRows = 128;
constexpr int kTileCols = 64;
constexpr int kVectorElements = 8;
constexpr int kVectorsPerTileRow = kTileCols / kVectorElements;                 // 8
constexpr int kLoadsPerThread = kTileRows * kVectorsPerTileRow / kTileThreads;  // 4
constexpr int kRowsPerLoad = 32 / kVectorsPerTileRow;  // 4: of one warp load; a thread's step
constexpr int kRowsPerWarp = kRowsPerLoad * kLoadsPerThread;  // 16
static_assert(kRowsPerWarp * (kTileThreads / 32) == kTileRows);

// One quantize launch: the input, its tiles, and the two copies' scale padding (a copy that is
// not written has a null padding buffer and no padding work).
struct TileGrid {
  const __nv_bfloat16* input = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_tiles = 0;
  int64_t col_tiles = 0;
  int64_t data_tiles = 0;
  int64_t data_ctas = 0;  // CTAs that walk the data tiles (data_tiles unless limited)
  // A data CTA's step from one tile to its next, data_ctas tiles on, as whole tile rows plus
  // tile columns.
  int64_t step_row_tiles = 0;
  int64_t step_col_tiles = 0;
  SwizzledPadding rowwise_padding;
  SwizzledPadding columnwise_padding;
  unsigned ctas = 0;  // data CTAs, then padding CTAs
};

inline void set_data_ctas(TileGrid& grid, int64_t data_ctas, const std::string& context) {
  grid.data_ctas = data_ctas;
  grid.step_row_tiles = data_ctas / grid.col_tiles;
  grid.step_col_tiles = data_ctas % grid.col_tiles;
  grid.ctas = checked_grid(
      data_ctas + padding_ctas(grid.rowwise_padding, grid.columnwise_padding, kTileThreads),
      grid.rows, grid.cols, context);
}

// For `copies` of the [rows, cols] input with `block_size` elements per scale. Throws
// std::invalid_argument when the grid is too large.
inline TileGrid make_tile_grid(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                               int block_size, OperandCopies copies, uint8_t* rowwise_scale,
                               uint8_t* columnwise_scale, const std::string& context) {
  TileGrid grid;
  grid.input = input;
  grid.rows = rows;
  grid.cols = cols;
  grid.row_tiles = (rows + kTileRows - 1) / kTileRows;
  grid.col_tiles = (cols + kTileCols - 1) / kTileCols;
  grid.data_tiles = grid.row_tiles * grid.col_tiles;
  if (has_rowwise(copies)) {
    grid.rowwise_padding = swizzled_padding(rowwise_scale, rows, cols / block_size);
  }
  if (has_columnwise(copies)) {
    grid.columnwise_padding = swizzled_padding(columnwise_scale, cols, rows / block_size);
  }
  set_data_ctas(grid, grid.data_tiles, context);
  return grid;
}

// At most `max_data_ctas` CTAs (at least one) walk the data tiles.
inline void limit_data_ctas(TileGrid& grid, int64_t max_data_ctas, const std::string& context) {
  const int64_t limit = max_data_ctas > 0 ? max_data_ctas : 1;
  if (grid.data_tiles > limit)
    set_data_ctas(grid, limit, context);
}

// Checks the buffers of the copies in `copies` (data aligned to `data_alignment` bytes for the
// kernels' vector stores, scales to 4 for the padding words) and keeps them; the buffers of a
// copy not asked for stay null.
template <typename CopyBuffers>
void take_copy_buffers(OperandCopies copies, const CopyBuffers& rowwise,
                       const CopyBuffers& columnwise, size_t data_alignment,
                       const std::string& context, CopyBuffers& kept_rowwise,
                       CopyBuffers& kept_columnwise) {
  if (has_rowwise(copies)) {
    require_device_pointer(rowwise.data, data_alignment, context + ": rowwise data");
    require_device_pointer(rowwise.scale, 4, context + ": rowwise scale");
    kept_rowwise = rowwise;
  }
  if (has_columnwise(copies)) {
    require_device_pointer(columnwise.data, data_alignment, context + ": columnwise data");
    require_device_pointer(columnwise.scale, 4, context + ": columnwise scale");
    kept_columnwise = columnwise;
  }
}

// Calls launch(rowwise, columnwise) with the copies as compile-time booleans
// (std::bool_constant), so each kernel is instantiated for exactly the work it does.
template <typename Launch>
void with_copies(OperandCopies copies, Launch&& launch) {
  switch (copies) {
    case OperandCopies::kRowwise:
      launch(std::true_type{}, std::false_type{});
      break;
    case OperandCopies::kColumnwise:
      launch(std::false_type{}, std::true_type{});
      break;
    case OperandCopies::kBoth:
      launch(std::true_type{}, std::true_type{});
      break;
  }
}

// Calls launch(std::bool_constant<flag>{}): a run-time option as a compile-time one.
template <typename Launch>
void with_flag(bool flag, Launch&& launch) {
  if (flag) {
    launch(std::true_type{});
  } else {
    launch(std::false_type{});
  }
}

// Padding CTA `cta` of `ctas` writes its share of both copies' padding.
__device__ inline void write_padding_share(const TileGrid& grid, int64_t cta, int64_t ctas) {
  const int64_t worker = cta * kTileThreads + threadIdx.x;
  const int64_t workers = ctas * kTileThreads;
  write_swizzled_padding(grid.rowwise_padding, worker, workers);
  write_swizzled_padding(grid.columnwise_padding, worker, workers);
}

// In a padding CTA: writes its share of both copies' padding and returns true.
__device__ inline bool handled_as_padding_cta(const TileGrid& grid) {
  const int64_t cta = blockIdx.x;
  if (cta < grid.data_ctas)
    return false;
  write_padding_share(grid, cta - grid.data_ctas, gridDim.x - grid.data_ctas);
  return true;
}

// Where a CTA's tile lies and how much of it is inside the tensor.
struct TilePosition {
  int64_t row0;
  int64_t col0;
  int valid_rows;
  int valid_cols;
};

// A data CTA's place in the walk of the tiles: row_tile counts tile rows from the last one up
// (see the top of this file), col_tile tile columns from the left.
struct TileCursor {
  int64_t row_tile;
  int64_t col_tile;
};

__device__ inline TileCursor first_tile(const TileGrid& grid) {
  const int64_t tile = blockIdx.x;
  return TileCursor{tile / grid.col_tiles, tile % grid.col_tiles};
}

// Moves `cursor` data_ctas tiles on (no division: the step is precomputed as rows + columns).
__device__ inline void advance_tile(const TileGrid& grid, TileCursor& cursor) {
  cursor.row_tile += grid.step_row_tiles;
  cursor.col_tile += grid.step_col_tiles;
  if (cursor.col_tile >= grid.col_tiles) {
    cursor.col_tile -= grid.col_tiles;
    ++cursor.row_tile;
  }
}

__device__ inline bool is_data_tile(const TileGrid& grid, const TileCursor& cursor) {
  return cursor.row_tile < grid.row_tiles;
}

// The tile in tile row `row_tile`, tile column `col_tile`.
__device__ inline TilePosition tile_at(const TileGrid& grid, int64_t row_tile, int64_t col_tile) {
  TilePosition position;
  position.row0 = row_tile * kTileRows;
  position.col0 = col_tile * kTileCols;
  const int64_t rows_left = grid.rows - position.row0;
  const int64_t cols_left = grid.cols - position.col0;
  position.valid_rows = static_cast<int>(rows_left < kTileRows ? rows_left : kTileRows);
  position.valid_cols = static_cast<int>(cols_left < kTileCols ? cols_left : kTileCols);
  return position;
}

// The walk's tile at `cursor`.
__device__ inline TilePosition tile_position(const TileGrid& grid, const TileCursor& cursor) {
  return tile_at(grid, grid.row_tiles - 1 - cursor.row_tile, cursor.col_tile);
}

// The tile of a CTA that has exactly one: row-major in blockIdx.x.
__device__ inline TilePosition tile_position(const TileGrid& grid) {
  const int64_t tile = blockIdx.x;
  return tile_at(grid, tile / grid.col_tiles, tile % grid.col_tiles);
}

// Row (within the tile) of load i of this thread, and the first column of its vector.
// (Divided as unsigned: no signed-division fix-ups.)
__device__ inline int load_row(int i) {
  const unsigned warp = threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  return static_cast<int>(warp * kRowsPerWarp + lane / kVectorsPerTileRow) + kRowsPerLoad * i;
}
__device__ inline int load_col() {
  return static_cast<int>(threadIdx.x % kVectorsPerTileRow) * kVectorElements;
}

// Scale (first_row + i, scale_col) of a swizzled scale buffer, for first_row a multiple of 128
// and 0 <= i < 128. A CTA's calls share first_row and scale_col / 4, so the 64-bit part of the
// offset (the 128x4 tile) is computed once and i and scale_col % 4 place the byte in the tile.
// (swizzled_scale_offset and swizzled_offset_in_tile, in unsigned arithmetic: every operand is
// non-negative, and unsigned divisions by the power-of-two tile sizes are plain shifts.)
__device__ inline uint8_t& swizzled_scale_at(uint8_t* scale, int64_t first_row, int i,
                                             int64_t scale_col, int64_t padded_scale_cols) {
  const auto column = static_cast<uint64_t>(scale_col);
  const uint64_t tile = static_cast<uint64_t>(first_row) / kScaleTileRows *
                            (static_cast<uint64_t>(padded_scale_cols) / kScaleTileCols) +
                        column / kScaleTileCols;
  const auto row = static_cast<unsigned>(i);
  const auto j = static_cast<unsigned>(column % kScaleTileCols);
  return scale[tile * kScaleTileBytes + row % 32 * 16 + row / 32 * 4 + j];
}

// Where this thread's loads go in a rowwise copy with `block_size` elements per scale. Load i
// is element index first_index + i * index_step of the copy (row-major), and its block's scale
// byte, when the vector starts a block, is scale[kRowwiseScaleStep * i]: load_row(i) =
// load_row(0) + 4 * i with load_row(0) % 32 in 0..3 or 16..19, so the loads' rows stay in one
// 32-row group of the 128x4 scale tile, where a row is 16 bytes on. Computed once, so the loads
// add instead of redoing the 64-bit offsets.
constexpr int kRowwiseScaleStep = kRowsPerLoad * 16;
static_assert(3 + kRowsPerLoad * (kLoadsPerThread - 1) < 16);

struct RowwiseTargets {
  int64_t first_index;
  int64_t index_step;
  uint8_t* scale;
};

__device__ inline RowwiseTargets rowwise_targets(const TileGrid& grid, const TilePosition& tile,
                                                 uint8_t* scale, int block_size,
                                                 int64_t padded_scale_cols) {
  const int64_t col = tile.col0 + load_col();
  uint8_t* const scale0 = &swizzled_scale_at(
      scale, tile.row0, load_row(0),
      static_cast<int64_t>(static_cast<uint64_t>(col) / static_cast<unsigned>(block_size)),
      padded_scale_cols);
  return RowwiseTargets{(tile.row0 + load_row(0)) * grid.cols + col, kRowsPerLoad * grid.cols,
                        scale0};
}

constexpr int kStagedWords = kTileCols / 2;  // per tile row
constexpr int kSliceRows = 16;               // rows of a thread's columnwise slice

__device__ inline int staged_word(int row, int word) {
  // Rows are non-negative; unsigned arithmetic spares the signed-division fix-ups.
  return word ^ static_cast<int>(static_cast<unsigned>(row) / kSliceRows % 8 * 4);
}

// This thread's four vectors of the tile (zeros outside the tensor).
__device__ inline void load_tile_vectors(const TileGrid& grid, const TilePosition& tile,
                                         uint4 (&vectors)[kLoadsPerThread]) {
  const int col = load_col();
  // One 64-bit address for the first load; the others are whole rows of loads further.
  const __nv_bfloat16* const first =
      grid.input + (tile.row0 + load_row(0)) * grid.cols + tile.col0 + col;
  const int64_t step = kRowsPerLoad * grid.cols;
  if (tile.valid_rows == kTileRows && tile.valid_cols == kTileCols) {
    // The usual case, without a predicate per load (which makes the compiler compute each
    // address on its own).
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i)
      vectors[i] = __ldg(reinterpret_cast<const uint4*>(first + i * step));
    return;
  }
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i) {
    vectors[i] = make_uint4(0, 0, 0, 0);
    if (load_row(i) < tile.valid_rows && col < tile.valid_cols)
      vectors[i] = __ldg(reinterpret_cast<const uint4*>(first + i * step));
  }
}

// Copies this thread's vectors to `staged` (the columnwise copy reads the tile from there).
__device__ inline void stage_tile(const uint4 (&vectors)[kLoadsPerThread],
                                  uint32_t (*staged)[kStagedWords]) {
  const int col = load_col();
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i) {
    const int row = load_row(i);
    *reinterpret_cast<uint4*>(&staged[row][staged_word(row, col / 2)]) = vectors[i];
  }
}

// load_tile_vectors, then stage_tile when kStage.
template <bool kStage>
__device__ inline void load_tile(const TileGrid& grid, const TilePosition& tile,
                                 uint4 (&vectors)[kLoadsPerThread],
                                 uint32_t (*staged)[kStagedWords]) {
  load_tile_vectors(grid, tile, vectors);
  if constexpr (kStage)
    stage_tile(vectors, staged);
}

// This thread's columnwise slice (see the top): its first row and first column in the tile.
struct ColumnSlice {
  int first_row;
  int first_col;
};

__device__ inline ColumnSlice column_slice() {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  return ColumnSlice{lane % 8 * kSliceRows, 2 * (warp * 4 + lane / 8)};
}

// The slice's 16 staged words, row by row: each the BF16 pair (first_col, first_col + 1) of one
// row, the first column in the low half.
__device__ inline void read_column_slice(const uint32_t (*staged)[kStagedWords],
                                         const ColumnSlice& slice, uint32_t (&words)[kSliceRows]) {
  // first_row is a multiple of kSliceRows: the slice's rows share one swizzle, computed once.
  const int word = staged_word(slice.first_row, slice.first_col / 2);
#pragma unroll
  for (int k = 0; k < kSliceRows; ++k)
    words[k] = staged[slice.first_row + k][word];
}

__host__ __device__ inline float bf16_bits_to_float(uint32_t bits16) {
  return fp32_from_bits(bits16 << 16);
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
  const uint32_t pair = __vmaxu2(__vmaxu2(vector.x & kMagnitudes, vector.y & kMagnitudes),
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
