#pragma once
// What a benchmark recipe needs to hold one MXFP8 operand: the bytes each copy takes and the
// QuantizedTensor views a GEMM plan reads. Non-owning: the caller allocates (kernels/
// DeviceBuffer) and quantize_mxfp8 (quant/mxfp8/quantize.h) fills the buffers.
//
//   data   E4M3, one byte per element: rowwise [rows, cols], columnwise [cols, rows]
//   scale  E8M0 per 32 elements along each copy's cols, swizzled 128x4 tiles
//          (swizzled_scale_layout.h): format kE4M3, layout kVec32Ue8m0

#include <cstdint>
#include <vector>

#include "quant/grouped_operand_layout.h"
#include "quant/operand_copies.h"
#include "quant/quantized_tensor.h"

namespace gemmscope {

struct Mxfp8OperandLayout {
  // Throws std::invalid_argument naming the value for shapes MXFP8 cannot take
  // (block_scaled_shape.h).
  Mxfp8OperandLayout(int64_t rows, int64_t cols, OperandCopies copies);

  int64_t rows;
  int64_t cols;
  OperandCopies copies;

  // Bytes of one copy's data.
  int64_t data_bytes() const { return rows * cols; }
  // Bytes of each copy's scales, padding included; 0 for a copy not in `copies`.
  int64_t rowwise_scale_bytes() const;
  int64_t columnwise_scale_bytes() const;
  // Device buffers the copies take: data and scales per copy.
  int buffer_count() const;

  // Throw std::logic_error for a copy not in `copies`.
  QuantizedTensor rowwise(const uint8_t* data, const uint8_t* scale) const;
  QuantizedTensor columnwise(const uint8_t* data, const uint8_t* scale) const;
};

// A grouped operand's MXFP8 copies, each group a tensor of its own.
using Mxfp8GroupedLayout = GroupedOperandLayout<Mxfp8OperandLayout>;

// Throws std::invalid_argument as Mxfp8OperandLayout does for a group's shape.
Mxfp8GroupedLayout mxfp8_grouped_layout(const std::vector<int64_t>& group_rows, int64_t cols,
                                        OperandCopies copies);

}  // namespace gemmscope
