#pragma once
// What a benchmark recipe needs to hold one NVFP4 operand: the bytes each copy takes and the
// QuantizedTensor views a GEMM plan reads. Non-owning: the caller allocates (kernels/
// DeviceBuffer) and quantize_nvfp4 (quant/nvfp4/quantize.h) fills the buffers.
//
//   data     E2M1, two elements per byte (first in the low nibble): rowwise [rows, cols / 2],
//            columnwise [cols, rows / 2]
//   scale    E4M3 per 16 elements along each copy's cols (or per 16x16 block), swizzled 128x4
//            tiles (swizzled_scale_layout.h): format kE2M1, layout kVec16Ue4m3
//   scalars  one Nvfp4TensorScalars (16 bytes) for the tensor: both amaxes and both copies'
//            tensor_scale, the FP32 factor the GEMM folds into alpha
//
// quantize_nvfp4 reads the BF16 input twice (amax kernel, then the quantize kernel).

#include <cstdint>
#include <vector>

#include "quant/grouped_operand_layout.h"
#include "quant/nvfp4/options.h"
#include "quant/nvfp4/tensor_scalars.h"
#include "quant/operand_copies.h"
#include "quant/quantized_tensor.h"

namespace gemmscope {

struct Nvfp4OperandLayout {
  // Throws std::invalid_argument naming the value for shapes or options NVFP4 cannot take
  // (require_nvfp4_shape).
  Nvfp4OperandLayout(int64_t rows, int64_t cols, OperandCopies copies, const Nvfp4Options& options);

  int64_t rows;
  int64_t cols;
  OperandCopies copies;
  Nvfp4Options options;

  // Bytes of one copy's data.
  int64_t data_bytes() const { return rows * cols / 2; }
  // Bytes of each copy's scales, padding included; 0 for a copy not in `copies`.
  int64_t rowwise_scale_bytes() const;
  int64_t columnwise_scale_bytes() const;
  // Device buffers the copies take: data and scales per copy, plus the tensor scalars.
  int buffer_count() const;

  // tensor_scale points into `scalars`. Throw std::logic_error for a copy not in `copies`.
  QuantizedTensor rowwise(const uint8_t* data, const uint8_t* scale,
                          const Nvfp4TensorScalars* scalars) const;
  QuantizedTensor columnwise(const uint8_t* data, const uint8_t* scale,
                             const Nvfp4TensorScalars* scalars) const;
};

// A grouped operand's NVFP4 copies, each group a tensor of its own (with its own scalars, one
// Nvfp4TensorScalars per group: the views' extra argument is the group's).
using Nvfp4GroupedLayout = GroupedOperandLayout<Nvfp4OperandLayout>;

// Throws std::invalid_argument as Nvfp4OperandLayout does for a group's shape.
Nvfp4GroupedLayout nvfp4_grouped_layout(const std::vector<int64_t>& group_rows, int64_t cols,
                                        OperandCopies copies, const Nvfp4Options& options);

}  // namespace gemmscope
