#include "bench/recipes/nvfp4_grouped_quantizer.h"

namespace gemmscope {

Nvfp4GroupedQuantizer::Nvfp4GroupedQuantizer(const OperandSource& source,
                                             const Nvfp4GroupedLayout& layout,
                                             const Nvfp4Options& options, cudaStream_t stream)
    : BlockScaledQuantizer(source, layout, layout.rowwise_scale_bytes(),
                           layout.columnwise_scale_bytes(), 2),
      scalars_(static_cast<size_t>(layout.group_count())),
      launch_(source.data, layout, options, {rowwise_.data.get(), rowwise_.scales.get()},
              {columnwise_.data.get(), columnwise_.scales.get()}, scalars_.get()),
      workspace_(launch_.workspace_bytes()) {
  launch_.upload(workspace_.get(), stream);
}

void Nvfp4GroupedQuantizer::quantize(cudaStream_t stream) {
  launch_.quantize(stream);
}

QuantizedTensor Nvfp4GroupedQuantizer::copy(bool columnwise, int64_t group) const {
  const Nvfp4TensorScalars* scalars = scalars_.get();
  return copy_view(columnwise, group,
                   group >= 0 && group < layout_.group_count() ? scalars + group : nullptr);
}

size_t Nvfp4GroupedQuantizer::launches() const {
  return launch_.launches();
}

}  // namespace gemmscope
