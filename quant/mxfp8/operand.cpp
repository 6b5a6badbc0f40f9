#include "quant/mxfp8/operand.h"

#include <stdexcept>

#include "quant/block_scaled_shape.h"
#include "quant/mxfp8/detail/scaling.h"

namespace gemmscope {
namespace {

QuantizedTensor mxfp8_view(int64_t rows, int64_t cols, const uint8_t* data, const uint8_t* scale) {
  QuantizedTensor view;
  view.data = data;
  view.format = ElementFormat::kE4M3;
  view.rows = rows;
  view.cols = cols;
  view.scale = scale;
  view.scale_layout = ScaleLayout::kVec32Ue8m0;
  return view;
}

}  // namespace

Mxfp8OperandLayout::Mxfp8OperandLayout(int64_t rows, int64_t cols, OperandCopies copies)
    : rows(rows), cols(cols), copies(copies) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, copies);
}

int64_t Mxfp8OperandLayout::rowwise_scale_bytes() const {
  return block_scale_bytes(rows, cols, kMxfp8BlockSize, copies, /*columnwise=*/false);
}

int64_t Mxfp8OperandLayout::columnwise_scale_bytes() const {
  return block_scale_bytes(rows, cols, kMxfp8BlockSize, copies, /*columnwise=*/true);
}

int Mxfp8OperandLayout::buffer_count() const {
  return copies == OperandCopies::kBoth ? 4 : 2;
}

QuantizedTensor Mxfp8OperandLayout::rowwise(const uint8_t* data, const uint8_t* scale) const {
  if (!has_rowwise(copies)) {
    throw std::logic_error("Mxfp8OperandLayout: the rowwise copy was not asked for");
  }
  return mxfp8_view(rows, cols, data, scale);
}

QuantizedTensor Mxfp8OperandLayout::columnwise(const uint8_t* data, const uint8_t* scale) const {
  if (!has_columnwise(copies)) {
    throw std::logic_error("Mxfp8OperandLayout: the columnwise copy was not asked for");
  }
  return mxfp8_view(cols, rows, data, scale);
}

Mxfp8GroupedLayout mxfp8_grouped_layout(const std::vector<int64_t>& group_rows, int64_t cols,
                                        OperandCopies copies) {
  return Mxfp8GroupedLayout(group_rows, cols, copies,
                            [&](int64_t rows) { return Mxfp8OperandLayout(rows, cols, copies); });
}

}  // namespace gemmscope
