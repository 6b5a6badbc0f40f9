#include "quant/fp8/block_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"
#include "quant/host_matrix.h"

namespace gemmscope {
namespace {

float block_scale(float amax) {
  return scale_from_amax(amax, kE4M3MaxFinite, /*power_of_2=*/true);
}

float nan_ignoring_max_abs(float amax, float value) {
  return std::isnan(value) ? amax : std::max(amax, std::fabs(value));
}

// Quantizes a [rows, cols] FP32 matrix 1x128 along cols: data [rows, cols], VEC128 scales.
void quantize_rows_1x128(const std::vector<float>& matrix, int64_t rows, int64_t cols,
                         uint8_t* data, float* scale_inv) {
  std::fill(scale_inv, scale_inv + vec128_scale_count(rows, cols), kScalePadding);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t block = 0; block * kFp8ScaleBlock < cols; ++block) {
      const int64_t begin = block * kFp8ScaleBlock;
      const int64_t end = std::min(cols, begin + kFp8ScaleBlock);
      float amax = 0.0f;
      for (int64_t c = begin; c < end; ++c)
        amax = nan_ignoring_max_abs(amax, matrix[r * cols + c]);
      const float scale = block_scale(amax);
      scale_inv[vec128_scale_index(r, block, rows)] = scale_inverse(scale);
      for (int64_t c = begin; c < end; ++c) {
        data[r * cols + c] = fp8_encode(matrix[r * cols + c] * scale, ElementFormat::kE4M3);
      }
    }
  }
}

}  // namespace

void reference_quantize_fp8_1x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                  uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                  float* columnwise_scale_inv) {
  const std::vector<float> matrix =
      widen_bf16(std::vector<__nv_bfloat16>(input, input + rows * cols));
  if (rowwise != nullptr)
    quantize_rows_1x128(matrix, rows, cols, rowwise, rowwise_scale_inv);
  if (columnwise != nullptr) {
    quantize_rows_1x128(transposed(matrix, rows, cols), cols, rows, columnwise,
                        columnwise_scale_inv);
  }
}

void reference_quantize_fp8_128x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                    float* columnwise_scale_inv) {
  const std::vector<float> matrix =
      widen_bf16(std::vector<__nv_bfloat16>(input, input + rows * cols));
  if (rowwise != nullptr) {
    std::fill(rowwise_scale_inv, rowwise_scale_inv + block128_scale_count(rows, cols),
              kScalePadding);
  }
  if (columnwise != nullptr) {
    std::fill(columnwise_scale_inv, columnwise_scale_inv + block128_scale_count(cols, rows),
              kScalePadding);
  }
  for (int64_t row_block = 0; row_block * kFp8ScaleBlock < rows; ++row_block) {
    for (int64_t col_block = 0; col_block * kFp8ScaleBlock < cols; ++col_block) {
      const int64_t row_begin = row_block * kFp8ScaleBlock;
      const int64_t row_end = std::min(rows, row_begin + kFp8ScaleBlock);
      const int64_t col_begin = col_block * kFp8ScaleBlock;
      const int64_t col_end = std::min(cols, col_begin + kFp8ScaleBlock);
      float amax = 0.0f;
      for (int64_t r = row_begin; r < row_end; ++r) {
        for (int64_t c = col_begin; c < col_end; ++c) {
          amax = nan_ignoring_max_abs(amax, matrix[r * cols + c]);
        }
      }
      const float scale = block_scale(amax);
      const float scale_inv = scale_inverse(scale);
      if (rowwise != nullptr) {
        rowwise_scale_inv[block128_scale_index(row_block, col_block, cols)] = scale_inv;
      }
      if (columnwise != nullptr) {
        columnwise_scale_inv[block128_scale_index(col_block, row_block, rows)] = scale_inv;
      }
      for (int64_t r = row_begin; r < row_end; ++r) {
        for (int64_t c = col_begin; c < col_end; ++c) {
          const uint8_t bits = fp8_encode(matrix[r * cols + c] * scale, ElementFormat::kE4M3);
          if (rowwise != nullptr)
            rowwise[r * cols + c] = bits;
          if (columnwise != nullptr)
            columnwise[c * rows + r] = bits;
        }
      }
    }
  }
}

}  // namespace gemmscope
