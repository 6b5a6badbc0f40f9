#pragma once
// One tensor whose rowwise and columnwise copies are quantized by two quantizers of the same
// source, each asked for its one copy: a recipe that scales a tensor's two copies differently
// (FP8RowwiseBF16Wgrad's weight: per output row for Fprop, one tensorwise scale for Dgrad).
// Both run in quantize(), one after the other; what they move and launch adds up.

#include <memory>

#include "bench/operand_quantizer.h"

namespace gemmscope {

class CopyPairQuantizer : public OperandQuantizer {
 public:
  // `rowwise` writes the rowwise copy, `columnwise` the columnwise one; neither may be null.
  CopyPairQuantizer(std::unique_ptr<OperandQuantizer> rowwise,
                    std::unique_ptr<OperandQuantizer> columnwise);

  void quantize(cudaStream_t stream) override;
  QuantizedTensor copy(bool columnwise, int64_t group) const override;
  double bytes_moved() const override;
  size_t launches() const override;

 private:
  std::unique_ptr<OperandQuantizer> rowwise_;
  std::unique_ptr<OperandQuantizer> columnwise_;
};

}  // namespace gemmscope
