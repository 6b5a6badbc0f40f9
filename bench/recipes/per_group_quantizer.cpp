#include "bench/recipes/per_group_quantizer.h"

#include <stdexcept>

namespace gemmscope {

PerGroupQuantizer::PerGroupQuantizer(const OperandSource& source,
                                     const TensorQuantizerFactory& make)
    : source_(source) {
  if (!source.grouped())
    throw std::invalid_argument("PerGroupQuantizer: the source is not grouped");
  int64_t first_row = 0;
  for (const int64_t rows : source.group_rows) {
    if (rows < 0)
      throw std::invalid_argument("PerGroupQuantizer: a group has negative rows");
    if (rows == 0) {
      groups_.push_back(nullptr);
      continue;
    }
    OperandSource group = source;
    group.data = source.data + first_row * source.cols;
    group.rows = rows;
    group.group_rows.clear();
    groups_.push_back(make(group));
    first_row += rows;
  }
  if (first_row != source.rows)
    throw std::invalid_argument("PerGroupQuantizer: the groups' rows do not sum to the tensor's");
}

void PerGroupQuantizer::quantize(cudaStream_t stream) {
  for (const std::unique_ptr<OperandQuantizer>& group : groups_) {
    if (group)
      group->quantize(stream);
  }
}

QuantizedTensor PerGroupQuantizer::copy(bool columnwise, int64_t group) const {
  const std::unique_ptr<OperandQuantizer>& quantizer = groups_.at(static_cast<size_t>(group));
  return quantizer ? quantizer->copy(columnwise, 0) : QuantizedTensor{};
}

double PerGroupQuantizer::bytes_moved() const {
  double bytes = 0;
  for (const std::unique_ptr<OperandQuantizer>& group : groups_)
    bytes += group ? group->bytes_moved() : 0.0;
  return bytes;
}

size_t PerGroupQuantizer::launches() const {
  size_t launches = 0;
  for (const std::unique_ptr<OperandQuantizer>& group : groups_)
    launches += group ? group->launches() : 0;
  return launches;
}

}  // namespace gemmscope
