#pragma once
// A grouped operand (operand_source.h) quantized group by group: one tensor quantizer per
// group that has rows, each launched on its own. What a recipe without a grouped quantization
// kernel does; its launches grow with the number of groups.

#include <functional>
#include <memory>
#include <vector>

#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"

namespace gemmscope {

class PerGroupQuantizer : public OperandQuantizer {
 public:
  using TensorQuantizerFactory =
      std::function<std::unique_ptr<OperandQuantizer>(const OperandSource&)>;

  // `make` builds the quantizer of one group's rows, a source that is not grouped.
  PerGroupQuantizer(const OperandSource& source, const TensorQuantizerFactory& make);

  void quantize(cudaStream_t stream) override;
  // A group without rows has an empty copy (no data, 0 rows or cols).
  QuantizedTensor copy(bool columnwise, int64_t group) const override;
  double bytes_moved() const override;
  size_t launches() const override;

 private:
  OperandSource source_;
  std::vector<std::unique_ptr<OperandQuantizer>> groups_;  // null for a group without rows
};

}  // namespace gemmscope
