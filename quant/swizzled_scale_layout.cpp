#include "quant/swizzled_scale_layout.h"

#include <stdexcept>
#include <string>

namespace gemmscope {

SwizzledScaleLayout::SwizzledScaleLayout(int64_t rows, int64_t scale_cols)
    : rows_(rows), scale_cols_(scale_cols) {
  if (rows <= 0) {
    throw std::invalid_argument("swizzled scale layout: rows must be positive, got " +
                                std::to_string(rows));
  }
  if (scale_cols <= 0) {
    throw std::invalid_argument("swizzled scale layout: scale columns must be positive, got " +
                                std::to_string(scale_cols));
  }
}

size_t SwizzledScaleLayout::offset(int64_t row, int64_t scale_col) const {
  if (row < 0 || row >= padded_rows() || scale_col < 0 || scale_col >= padded_scale_cols()) {
    throw std::out_of_range("swizzled scale layout: position (" + std::to_string(row) + ", " +
                            std::to_string(scale_col) + ") is outside the padded " +
                            std::to_string(padded_rows()) + "x" +
                            std::to_string(padded_scale_cols()) + " scale matrix");
  }
  return static_cast<size_t>(swizzled_scale_offset(row, scale_col, padded_scale_cols()));
}

}  // namespace gemmscope
