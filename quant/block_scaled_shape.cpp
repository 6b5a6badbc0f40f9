#include "quant/block_scaled_shape.h"

#include <stdexcept>

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

}  // namespace gemmscope
