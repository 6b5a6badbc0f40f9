#pragma once
// Writes the padding bytes of a swizzled scale buffer (quant/swizzled_scale_layout.h), so that
// a quantizer leaves the whole buffer defined without a separate memset pass. The quantize
// kernels append a few CTAs to their grid for this; the work is tiny next to the data (at most
// 127 padded rows and 3 padded scale columns) and is zero for the usual model shapes, whose
// dimensions are multiples of 128.
//
// Two regions: whole padded rows (rows >= `rows`), written one 4-byte word per 128x4 tile
// (the 4 scale columns of a tile row are adjacent bytes); and the padded scale columns of the
// real rows, written byte by byte.

#include <cuda_runtime.h>

#include <cstdint>

#include "quant/swizzled_scale_layout.h"

namespace gemmscope::detail {

struct SwizzledPadding {
  uint8_t* scale = nullptr;  // null: nothing to pad
  int64_t rows = 0;
  int64_t scale_cols = 0;
  int64_t padded_rows = 0;
  int64_t padded_scale_cols = 0;

  // Independent work items: one per padded-row word plus one per real row when scale columns
  // are padded.
  __host__ __device__ int64_t row_words() const {
    return (padded_rows - rows) * (padded_scale_cols / kScaleTileCols);
  }
  __host__ __device__ int64_t column_rows() const {
    return padded_scale_cols > scale_cols ? rows : 0;
  }
  __host__ __device__ int64_t work_items() const {
    return scale == nullptr ? 0 : row_words() + column_rows();
  }
};

inline SwizzledPadding swizzled_padding(uint8_t* scale, int64_t rows, int64_t scale_cols) {
  SwizzledPadding padding;
  padding.scale = scale;
  padding.rows = rows;
  padding.scale_cols = scale_cols;
  padding.padded_rows = round_up_to(rows, kScaleTileRows);
  padding.padded_scale_cols = round_up_to(scale_cols, kScaleTileCols);
  return padding;
}

// Work items `first`, `first + stride`, ... of `padding`.
__device__ inline void write_swizzled_padding(const SwizzledPadding& padding, int64_t first,
                                              int64_t stride) {
  constexpr uint32_t kPaddingWord = 0x01010101u * kSwizzledScalePadding;
  const int64_t words = padding.row_words();
  const int64_t tiles_per_row = padding.padded_scale_cols / kScaleTileCols;
  for (int64_t item = first; item < padding.work_items(); item += stride) {
    if (item < words) {
      const int64_t row = padding.rows + item / tiles_per_row;
      const int64_t col = item % tiles_per_row * kScaleTileCols;
      *reinterpret_cast<uint32_t*>(padding.scale +
                                   swizzled_scale_offset(row, col, padding.padded_scale_cols)) =
          kPaddingWord;
    } else {
      const int64_t row = item - words;
      for (int64_t col = padding.scale_cols; col < padding.padded_scale_cols; ++col) {
        padding.scale[swizzled_scale_offset(row, col, padding.padded_scale_cols)] =
            kSwizzledScalePadding;
      }
    }
  }
}

// CTAs of `threads` threads to append to a grid for the padding of two buffers, about 8 items
// per thread.
inline int64_t padding_ctas(const SwizzledPadding& a, const SwizzledPadding& b, int threads) {
  const int64_t items = a.work_items() > b.work_items() ? a.work_items() : b.work_items();
  const int64_t per_cta = static_cast<int64_t>(threads) * 8;
  return (items + per_cta - 1) / per_cta;
}

}  // namespace gemmscope::detail
