#pragma once
// What the block- and line-scaled quantizers (FP8Block, FP8Rowwise, FP8RowwiseBF16Wgrad's
// tensorwise copy, MXFP8, NVFP4) have in common: their source, their
// operand layout, and the device buffers of each copy (rowwise, columnwise) that was asked
// for, plus the bytes one quantization moves. Each recipe adds only its quantize() call.

#include <cuda_bf16.h>

#include <cstdint>

#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "kernels/device_buffer.h"
#include "quant/operand_copies.h"

namespace gemmscope {

// One copy's data and block scales, allocated only when the copy is wanted.
template <typename Scale>
struct CopyBuffers {
  CopyBuffers(bool wanted, int64_t data_bytes, int64_t scale_count)
      : data(wanted ? static_cast<size_t>(data_bytes) : 0),
        scales(wanted ? static_cast<size_t>(scale_count) : 0) {}

  // Bytes a quantizer writes into this copy.
  size_t bytes() const { return data.bytes() + scales.bytes(); }

  DeviceBuffer<uint8_t> data;
  DeviceBuffer<Scale> scales;
};

template <typename Layout, typename Scale>
class BlockScaledQuantizer : public OperandQuantizer {
 public:
  // `input_reads`: how many times one quantization reads the BF16 input.
  double bytes_moved() const override {
    return static_cast<double>(source_.rows) * static_cast<double>(source_.cols) *
               (input_reads_ * sizeof(__nv_bfloat16)) +
           static_cast<double>(rowwise_.bytes() + columnwise_.bytes());
  }

 protected:
  BlockScaledQuantizer(const OperandSource& source, const Layout& layout,
                       int64_t rowwise_scale_count, int64_t columnwise_scale_count, int input_reads)
      : source_(source),
        layout_(layout),
        rowwise_(has_rowwise(source.copies), layout.data_bytes(), rowwise_scale_count),
        columnwise_(has_columnwise(source.copies), layout.data_bytes(), columnwise_scale_count),
        input_reads_(input_reads) {}

  // The layout's view of a copy; `extra` are the layout's further arguments (NVFP4's scalars).
  template <typename... Extra>
  QuantizedTensor copy_view(bool columnwise, Extra... extra) const {
    return columnwise
               ? layout_.columnwise(columnwise_.data.get(), columnwise_.scales.get(), extra...)
               : layout_.rowwise(rowwise_.data.get(), rowwise_.scales.get(), extra...);
  }

  OperandSource source_;
  Layout layout_;
  CopyBuffers<Scale> rowwise_;
  CopyBuffers<Scale> columnwise_;

 private:
  int input_reads_;
};

}  // namespace gemmscope
