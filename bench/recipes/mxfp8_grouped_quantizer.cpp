#include "bench/recipes/mxfp8_grouped_quantizer.h"

namespace gemmscope {

Mxfp8GroupedQuantizer::Mxfp8GroupedQuantizer(const OperandSource& source,
                                             const Mxfp8GroupedLayout& layout, cudaStream_t stream)
    : BlockScaledQuantizer(source, layout, layout.rowwise_scale_bytes(),
                           layout.columnwise_scale_bytes(), 1),
      launch_(source.data, layout, {rowwise_.data.get(), rowwise_.scales.get()},
              {columnwise_.data.get(), columnwise_.scales.get()}),
      workspace_(launch_.workspace_bytes()) {
  launch_.upload(workspace_.get(), stream);
}

void Mxfp8GroupedQuantizer::quantize(cudaStream_t stream) {
  launch_.quantize(stream);
}

QuantizedTensor Mxfp8GroupedQuantizer::copy(bool columnwise, int64_t group) const {
  return copy_view(columnwise, group);
}

size_t Mxfp8GroupedQuantizer::launches() const {
  return launch_.launches();
}

}  // namespace gemmscope
