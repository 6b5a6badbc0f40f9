#include "quant/nvfp4/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "quant/fp8/format.h"
#include "quant/host_matrix.h"
#include "quant/nvfp4/detail/scaling.h"
#include "quant/nvfp4/detail/stochastic_rounding.h"
#include "quant/nvfp4/e2m1.h"
#include "quant/nvfp4/hadamard.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

// max |v| over the values, NaN when any is NaN.
float amax_of(const std::vector<float>& values) {
  float amax = 0.0f;
  for (const float v : values) {
    if (std::isnan(v))
      return std::numeric_limits<float>::quiet_NaN();
    amax = std::max(amax, std::fabs(v));
  }
  return amax;
}

// The rows of the block holding (row, block column): the row alone, or its 16-row group.
void block_rows(int64_t row, int64_t rows, Nvfp4BlockShape shape, int64_t& first, int64_t& end) {
  if (shape == Nvfp4BlockShape::k1x16) {
    first = row;
    end = row + 1;
  } else {
    first = row / kNvfp4BlockSize * kNvfp4BlockSize;
    end = std::min(first + kNvfp4BlockSize, rows);
  }
}

}  // namespace

HostQuantizedCopy reference_quantize_nvfp4(const std::vector<float>& values, int64_t rows,
                                           int64_t cols, Nvfp4BlockShape block_shape,
                                           const Nvfp4Rounding& rounding) {
  require_nvfp4_shape(rows, cols, OperandCopies::kRowwise, Nvfp4Options{});
  const SwizzledScaleLayout layout(rows, cols / kNvfp4BlockSize);
  HostQuantizedCopy copy;
  copy.rows = rows;
  copy.cols = cols;
  copy.data.assign(static_cast<size_t>(rows * cols / 2), 0);
  copy.scale.assign(layout.bytes(), kSwizzledScalePadding);
  copy.amax = amax_of(values);
  const float encode_scale = nvfp4_encode_scale(copy.amax);
  copy.tensor_scale = nvfp4_tensor_dequant_scale(encode_scale);

  for (int64_t r = 0; r < rows; ++r) {
    int64_t first_row = 0;
    int64_t end_row = 0;
    block_rows(r, rows, block_shape, first_row, end_row);
    for (int64_t block = 0; block < layout.scale_cols(); ++block) {
      const int64_t first_col = block * kNvfp4BlockSize;
      float block_amax = 0.0f;
      bool finite = true;
      for (int64_t br = first_row; br < end_row; ++br) {
        for (int64_t c = first_col; c < first_col + kNvfp4BlockSize; ++c) {
          const float v = values[br * cols + c];
          finite = finite && std::isfinite(v);
          block_amax = std::max(block_amax, std::fabs(v));
        }
      }
      uint8_t scale = kNvfp4NanScale;
      uint8_t codes[kNvfp4BlockSize] = {};
      if (finite) {
        scale =
            fp8_encode(nvfp4_block_scale_unrounded(block_amax, encode_scale), ElementFormat::kE4M3);
        const float multiplier =
            nvfp4_element_multiplier(fp8_decode(scale, ElementFormat::kE4M3), encode_scale);
        for (int k = 0; k < kNvfp4BlockSize; ++k) {
          const int64_t index = r * cols + first_col + k;
          const float scaled = values[index] * multiplier;
          codes[k] = rounding.stochastic
                         ? encode_e2m1_stochastic(
                               scaled, stochastic_rounding_bits(rounding.seed, rounding.stream,
                                                                static_cast<uint64_t>(index)))
                         : encode_e2m1(scaled);
        }
      }
      for (int k = 0; k < kNvfp4BlockSize; k += 2) {
        copy.data[(r * cols + first_col + k) / 2] = pack_e2m1_pair(codes[k], codes[k + 1]);
      }
      copy.scale[layout.offset(r, block)] = scale;
    }
  }
  return copy;
}

std::vector<float> reference_hadamard_rows(const std::vector<float>& values, int64_t rows,
                                           int64_t cols, uint16_t sign_mask) {
  std::vector<float> result = values;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c + kHadamardSize <= cols; c += kHadamardSize) {
      random_hadamard_transform16(&result[r * cols + c], sign_mask);
    }
  }
  return result;
}

HostQuantizedTensor reference_quantize_nvfp4_tensor(const std::vector<__nv_bfloat16>& input,
                                                    int64_t rows, int64_t cols,
                                                    OperandCopies copies,
                                                    const Nvfp4Options& options) {
  require_nvfp4_shape(rows, cols, copies, options);
  const std::vector<float> values = widen_bf16(input);
  HostQuantizedTensor tensor;
  if (has_rowwise(copies)) {
    tensor.rowwise = reference_quantize_nvfp4(
        values, rows, cols, options.block_shape,
        Nvfp4Rounding{options.stochastic_rounding, options.rounding_seed, kRowwiseRoundingStream});
  }
  if (has_columnwise(copies)) {
    std::vector<float> columns = transposed(values, rows, cols);
    if (options.columnwise_hadamard) {
      columns =
          reference_hadamard_rows(columns, cols, rows, hadamard_sign_mask(options.hadamard_seed));
    }
    tensor.columnwise =
        reference_quantize_nvfp4(columns, cols, rows, options.block_shape,
                                 Nvfp4Rounding{options.stochastic_rounding, options.rounding_seed,
                                               kColumnwiseRoundingStream});
  }
  return tensor;
}

std::vector<float> reference_dequantize_nvfp4(const HostQuantizedCopy& copy,
                                              bool apply_tensor_scale) {
  const SwizzledScaleLayout layout(copy.rows, copy.cols / kNvfp4BlockSize);
  std::vector<float> values(static_cast<size_t>(copy.rows * copy.cols));
  for (int64_t r = 0; r < copy.rows; ++r) {
    for (int64_t c = 0; c < copy.cols; ++c) {
      const int64_t index = r * copy.cols + c;
      const uint8_t byte = copy.data[index / 2];
      const uint8_t code = index % 2 == 0 ? e2m1_first_of_pair(byte) : e2m1_second_of_pair(byte);
      const float scale =
          fp8_decode(copy.scale[layout.offset(r, c / kNvfp4BlockSize)], ElementFormat::kE4M3);
      float value = decode_e2m1(code) * scale;
      if (apply_tensor_scale)
        value *= copy.tensor_scale;
      values[index] = value;
    }
  }
  return values;
}

}  // namespace gemmscope
