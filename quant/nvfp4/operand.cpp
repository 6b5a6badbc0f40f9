#include "quant/nvfp4/operand.h"

#include <stdexcept>

#include "quant/block_scaled_shape.h"
#include "quant/nvfp4/detail/scaling.h"

namespace gemmscope {
namespace {

QuantizedTensor nvfp4_view(int64_t rows, int64_t cols, const uint8_t* data, const uint8_t* scale,
                           const float* tensor_scale) {
  if (tensor_scale == nullptr) {
    throw std::invalid_argument("Nvfp4OperandLayout: the tensor scalars pointer is null");
  }
  QuantizedTensor view;
  view.data = data;
  view.format = ElementFormat::kE2M1;
  view.rows = rows;
  view.cols = cols;
  view.scale = scale;
  view.scale_layout = ScaleLayout::kVec16Ue4m3;
  view.tensor_scale = tensor_scale;
  return view;
}

}  // namespace

Nvfp4OperandLayout::Nvfp4OperandLayout(int64_t rows, int64_t cols, OperandCopies copies,
                                       const Nvfp4Options& options)
    : rows(rows), cols(cols), copies(copies), options(options) {
  require_nvfp4_shape(rows, cols, copies, options);
}

int64_t Nvfp4OperandLayout::rowwise_scale_bytes() const {
  return block_scale_bytes(rows, cols, kNvfp4BlockSize, copies, /*columnwise=*/false);
}

int64_t Nvfp4OperandLayout::columnwise_scale_bytes() const {
  return block_scale_bytes(rows, cols, kNvfp4BlockSize, copies, /*columnwise=*/true);
}

int Nvfp4OperandLayout::buffer_count() const {
  return copies == OperandCopies::kBoth ? 5 : 3;
}

QuantizedTensor Nvfp4OperandLayout::rowwise(const uint8_t* data, const uint8_t* scale,
                                            const Nvfp4TensorScalars* scalars) const {
  if (!has_rowwise(copies)) {
    throw std::logic_error("Nvfp4OperandLayout: the rowwise copy was not asked for");
  }
  return nvfp4_view(rows, cols, data, scale,
                    scalars == nullptr ? nullptr : &scalars->tensor_scale_rowwise);
}

QuantizedTensor Nvfp4OperandLayout::columnwise(const uint8_t* data, const uint8_t* scale,
                                               const Nvfp4TensorScalars* scalars) const {
  if (!has_columnwise(copies)) {
    throw std::logic_error("Nvfp4OperandLayout: the columnwise copy was not asked for");
  }
  return nvfp4_view(cols, rows, data, scale,
                    scalars == nullptr ? nullptr : &scalars->tensor_scale_columnwise);
}

Nvfp4GroupedLayout nvfp4_grouped_layout(const std::vector<int64_t>& group_rows, int64_t cols,
                                        OperandCopies copies, const Nvfp4Options& options) {
  return Nvfp4GroupedLayout(group_rows, cols, copies, [&](int64_t rows) {
    return Nvfp4OperandLayout(rows, cols, copies, options);
  });
}

}  // namespace gemmscope
