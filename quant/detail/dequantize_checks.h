#pragma once
// Argument checks shared by the MXFP8 and NVFP4 dequantize entry points.

#include <stdexcept>
#include <string>

#include "quant/format_names.h"
#include "quant/quantized_tensor.h"

namespace gemmscope::detail {

// Throws std::invalid_argument unless `q` has `format` and `layout`, positive rows and cols a
// multiple of `block_size`, and data and scale pointers.
inline void require_block_scaled_operand(const QuantizedTensor& q, ElementFormat format,
                                         ScaleLayout layout, int block_size,
                                         const std::string& context) {
  if (q.format != format) {
    throw std::invalid_argument(context + ": format must be " + to_string(format) + ", got " +
                                to_string(q.format));
  }
  if (q.scale_layout != layout) {
    throw std::invalid_argument(context + ": scale layout must be " + to_string(layout) + ", got " +
                                to_string(q.scale_layout));
  }
  if (q.rows <= 0 || q.cols <= 0 || q.cols % block_size != 0) {
    throw std::invalid_argument(context + ": needs positive rows and cols a multiple of " +
                                std::to_string(block_size) + ", got " + std::to_string(q.rows) +
                                "x" + std::to_string(q.cols));
  }
  if (q.scale == nullptr)
    throw std::invalid_argument(context + ": scale is null");
}

}  // namespace gemmscope::detail
