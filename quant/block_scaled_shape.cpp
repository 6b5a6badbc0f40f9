#include "quant/block_scaled_shape.h"

#include <stdexcept>

#include "quant/swizzled_scale_layout.h"

namespace gemmscope {

void require_block_scaled_shape(const std::string& format, int64_t rows, int64_t cols,
                                int block_size, OperandCopies copies) {
  const std::string block = std::to_string(block_size);
  if (rows <= 0) {
    throw std::invalid_argument(format + ": rows must be positive, got " + std::to_string(rows));
  }
  if (cols <= 0) {
    throw std::invalid_argument(format + ": cols must be positive, got " + std::to_string(cols));
  }
  if (cols % block_size != 0) {
    throw std::invalid_argument(format + ": cols (the rowwise copy's contraction dimension) " +
                                "must be a multiple of " + block + ", got " + std::to_string(cols));
  }
  if (has_columnwise(copies) && rows % block_size != 0) {
    throw std::invalid_argument(format + ": rows (the columnwise copy's contraction " +
                                "dimension) must be a multiple of " + block + ", got " +
                                std::to_string(rows));
  }
}

int64_t block_scale_bytes(int64_t rows, int64_t cols, int block_size, OperandCopies copies,
                          bool columnwise) {
  if (!(columnwise ? has_columnwise(copies) : has_rowwise(copies)))
    return 0;
  const SwizzledScaleLayout layout = columnwise ? SwizzledScaleLayout(cols, rows / block_size)
                                                : SwizzledScaleLayout(rows, cols / block_size);
  return static_cast<int64_t>(layout.bytes());
}

}  // namespace gemmscope
