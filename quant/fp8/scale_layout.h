#pragma once
// Where the FP32 dequantization scales of the FP8 block recipes live, in the layouts cuBLASLt's
// VEC128_32F and BLK128x128_32F scale modes read. An operand is row-major [rows, cols] and
// contracted along cols (K-major, "TN"); a columnwise copy is an operand of its own with rows
// and cols swapped.
//
//   VEC128_32F (1x128 blocks along cols):   FP32 [ceil(cols/128)][roundup(rows, 4)], rows fastest
//   BLK128x128_32F (128x128 blocks):        FP32 [ceil(rows/128)][roundup(ceil(cols/128), 4)]
//
// Padding slots (the round-ups) hold kScalePadding: they scale no element, and 1.0 keeps them
// finite and neutral whatever reads them. Partial blocks at the right and bottom edges get an
// ordinary slot whose scale comes from the elements that exist.

#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr int64_t kFp8ScaleBlock = 128;
constexpr int64_t kScaleRowAlignment = 4;
constexpr float kScalePadding = 1.0f;

GEMMSCOPE_HOST_DEVICE inline int64_t ceil_div(int64_t value, int64_t divisor) {
  return (value + divisor - 1) / divisor;
}

GEMMSCOPE_HOST_DEVICE inline int64_t round_up(int64_t value, int64_t multiple) {
  return ceil_div(value, multiple) * multiple;
}

// VEC128_32F: FP32 elements of the scale tensor of a [rows, cols] operand.
GEMMSCOPE_HOST_DEVICE inline int64_t vec128_scale_count(int64_t rows, int64_t cols) {
  return ceil_div(cols, kFp8ScaleBlock) * round_up(rows, kScaleRowAlignment);
}

// VEC128_32F: slot of the scale of elements [row, 128*col_block .. 128*col_block + 127].
GEMMSCOPE_HOST_DEVICE inline int64_t vec128_scale_index(int64_t row, int64_t col_block,
                                                        int64_t rows) {
  return col_block * round_up(rows, kScaleRowAlignment) + row;
}

// BLK128x128_32F: FP32 elements of the scale tensor of a [rows, cols] operand.
GEMMSCOPE_HOST_DEVICE inline int64_t block128_scale_count(int64_t rows, int64_t cols) {
  return ceil_div(rows, kFp8ScaleBlock) *
         round_up(ceil_div(cols, kFp8ScaleBlock), kScaleRowAlignment);
}

// BLK128x128_32F: slot of the scale of block (row_block, col_block).
GEMMSCOPE_HOST_DEVICE inline int64_t block128_scale_index(int64_t row_block, int64_t col_block,
                                                          int64_t cols) {
  return row_block * round_up(ceil_div(cols, kFp8ScaleBlock), kScaleRowAlignment) + col_block;
}

}  // namespace gemmscope
