#include "bench/recipes/copy_pair_quantizer.h"

#include <stdexcept>
#include <utility>

namespace gemmscope {

CopyPairQuantizer::CopyPairQuantizer(std::unique_ptr<OperandQuantizer> rowwise,
                                     std::unique_ptr<OperandQuantizer> columnwise)
    : rowwise_(std::move(rowwise)), columnwise_(std::move(columnwise)) {
  if (!rowwise_ || !columnwise_)
    throw std::invalid_argument("CopyPairQuantizer: a copy has no quantizer");
}

void CopyPairQuantizer::quantize(cudaStream_t stream) {
  rowwise_->quantize(stream);
  columnwise_->quantize(stream);
}

QuantizedTensor CopyPairQuantizer::copy(bool columnwise, int64_t group) const {
  return (columnwise ? columnwise_ : rowwise_)->copy(columnwise, group);
}

double CopyPairQuantizer::bytes_moved() const {
  return rowwise_->bytes_moved() + columnwise_->bytes_moved();
}

size_t CopyPairQuantizer::launches() const {
  return rowwise_->launches() + columnwise_->launches();
}

}  // namespace gemmscope
