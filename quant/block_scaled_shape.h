#pragma once
// The shapes MXFP8 and NVFP4 can take. Blocks run along the contraction dimension and never
// straddle its end: a copy's contraction length must be a multiple of the block (32 for MXFP8,
// 16 for NVFP4). That is cols for the rowwise copy and rows for the columnwise one. The
// quantizers also need cols to be a multiple of the block when only the columnwise copy is
// written (they read the BF16 input in 16-byte vectors); model dimensions always are.

#include <cstdint>
#include <string>

#include "quant/operand_copies.h"

namespace gemmscope {

// Throws std::invalid_argument naming the format, the offending dimension and its value.
void require_block_scaled_shape(const std::string& format, int64_t rows, int64_t cols,
                                int block_size, OperandCopies copies);

// Bytes of one copy's swizzled block scales (quant/swizzled_scale_layout.h) for a [rows, cols]
// tensor, 0 when `copies` leaves that copy out: the rowwise copy has rows x cols / block_size
// scales, the columnwise copy (the transpose) cols x rows / block_size.
int64_t block_scale_bytes(int64_t rows, int64_t cols, int block_size, OperandCopies copies,
                          bool columnwise);

}  // namespace gemmscope
