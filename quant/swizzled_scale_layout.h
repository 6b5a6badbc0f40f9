#pragma once
// The scale-tensor layout cuBLASLt reads in its block-scaled modes CUBLASLT_MATMUL_MATRIX_SCALE_
// VEC32_UE8M0 (MXFP8: one E8M0 per 32 elements along K) and VEC16_UE4M3 (NVFP4: one E4M3 per
// 16). For an operand of `rows` rows whose contraction dimension holds `scale_cols` blocks:
//
//   - rows are padded to a multiple of 128 and scale columns to a multiple of 4;
//   - the padded [rows, scale_cols] byte matrix is cut into 128x4 tiles of 512 bytes, stored in
//     the order tile_row * tiles_per_row + tile_col;
//   - inside a tile, element (i, j) sits at byte (i % 32) * 16 + (i / 32) * 4 + j: the 128 rows
//     are interleaved as four groups of 32, so one 16-byte line holds rows i, i+32, i+64, i+96.
//
// Padding bytes (rows >= `rows` or scale columns >= `scale_cols`) never scale a real element;
// gemmscope's quantizers write them as kSwizzledScalePadding so the buffer's content is
// fully defined.

#include <cstddef>
#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr int kScaleTileRows = 128;
constexpr int kScaleTileCols = 4;
constexpr int kScaleTileBytes = kScaleTileRows * kScaleTileCols;
constexpr uint8_t kSwizzledScalePadding = 0;

GEMMSCOPE_HOST_DEVICE inline int64_t round_up_to(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Byte offset of element (i, j) inside a 128x4 tile.
GEMMSCOPE_HOST_DEVICE inline int swizzled_offset_in_tile(int i, int j) {
  return (i % 32) * 16 + (i / 32) * 4 + j;
}

// Byte offset of scale (row, scale_col) in a buffer whose padded scale-column count is
// `padded_scale_cols` (a multiple of 4). Shared by the GPU quantizers and the host code. (For
// the first scale of a tile, (row, scale_col) multiples of (128, 4), this is the tile's start;
// the quantize kernels add swizzled_offset_in_tile to that.)
GEMMSCOPE_HOST_DEVICE inline int64_t swizzled_scale_offset(int64_t row, int64_t scale_col,
                                                           int64_t padded_scale_cols) {
  const int64_t tiles_per_row = padded_scale_cols / kScaleTileCols;
  const int64_t tile = (row / kScaleTileRows) * tiles_per_row + scale_col / kScaleTileCols;
  return tile * kScaleTileBytes +
         swizzled_offset_in_tile(static_cast<int>(row % kScaleTileRows),
                                 static_cast<int>(scale_col % kScaleTileCols));
}

class SwizzledScaleLayout {
 public:
  // Throws std::invalid_argument unless both counts are positive.
  SwizzledScaleLayout(int64_t rows, int64_t scale_cols);

  int64_t rows() const { return rows_; }
  int64_t scale_cols() const { return scale_cols_; }
  int64_t padded_rows() const { return round_up_to(rows_, kScaleTileRows); }
  int64_t padded_scale_cols() const { return round_up_to(scale_cols_, kScaleTileCols); }
  // Size of the whole buffer, padding included.
  size_t bytes() const { return static_cast<size_t>(padded_rows() * padded_scale_cols()); }
  // Throws std::out_of_range for a position outside the padded matrix.
  size_t offset(int64_t row, int64_t scale_col) const;
  bool is_padding(int64_t row, int64_t scale_col) const {
    return row >= rows_ || scale_col >= scale_cols_;
  }

 private:
  int64_t rows_;
  int64_t scale_cols_;
};

}  // namespace gemmscope
