#include "quant/fp8/operand.h"

#include <stdexcept>
#include <string>

#include "quant/base/unsupported.h"
#include "quant/format_names.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

int64_t scale_count(ScaleLayout layout, int64_t rows, int64_t cols) {
  switch (layout) {
    case ScaleLayout::kTensor:
      return 1;
    case ScaleLayout::kVec128:
      return vec128_scale_count(rows, cols);
    case ScaleLayout::kBlock128x128:
      return block128_scale_count(rows, cols);
    case ScaleLayout::kOuterVec:
      return rows;
    default:
      throw std::invalid_argument(std::string("Fp8OperandLayout: not an FP8 scale layout: ") +
                                  to_string(layout));
  }
}

}  // namespace

Fp8OperandLayout::Fp8OperandLayout(int64_t rows_in, int64_t cols_in, ElementFormat format_in,
                                   ScaleLayout scale_layout_in)
    : rows(rows_in), cols(cols_in), format(format_in), scale_layout(scale_layout_in) {
  if (rows <= 0) {
    throw std::invalid_argument("Fp8OperandLayout: rows must be positive, got " +
                                std::to_string(rows));
  }
  if (cols <= 0) {
    throw std::invalid_argument("Fp8OperandLayout: cols must be positive, got " +
                                std::to_string(cols));
  }
  require_fp8_format(format, "Fp8OperandLayout");
  scale_count(scale_layout, rows, cols);  // rejects non-FP8 layouts
  if (scale_layout != ScaleLayout::kTensor && format != ElementFormat::kE4M3) {
    throw std::invalid_argument(std::string("Fp8OperandLayout: block scaling is E4M3 only, got ") +
                                to_string(format) + " with layout " + to_string(scale_layout));
  }
}

int64_t Fp8OperandLayout::rowwise_scale_count() const {
  return scale_count(scale_layout, rows, cols);
}

int64_t Fp8OperandLayout::columnwise_scale_count() const {
  return scale_count(scale_layout, cols, rows);
}

QuantizedTensor Fp8OperandLayout::rowwise(const void* data, const float* scale_inv) const {
  QuantizedTensor view;
  view.data = data;
  view.format = format;
  view.rows = rows;
  view.cols = cols;
  view.scale = scale_inv;
  view.scale_layout = scale_layout;
  return view;
}

QuantizedTensor Fp8OperandLayout::columnwise(const void* data, const float* scale_inv) const {
  QuantizedTensor view = rowwise(data, scale_inv);
  view.rows = cols;
  view.cols = rows;
  return view;
}

void require_fp8_gemm_operand(const QuantizedTensor& operand) {
  if (operand.format != ElementFormat::kE4M3 && operand.format != ElementFormat::kE5M2) {
    throw Unsupported(std::string("FP8 GEMM operand must be E4M3 or E5M2, got ") +
                      to_string(operand.format));
  }
  if (operand.cols % kFp8GemmContractionMultiple != 0) {
    throw Unsupported("cuBLASLt FP8 GEMMs need the contraction dimension to be a multiple of " +
                      std::to_string(kFp8GemmContractionMultiple) + ", got " +
                      std::to_string(operand.cols) + " (operand " + std::to_string(operand.rows) +
                      "x" + std::to_string(operand.cols) + ")");
  }
}

}  // namespace gemmscope
