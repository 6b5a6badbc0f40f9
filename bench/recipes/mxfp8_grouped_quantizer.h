#pragma once
// A grouped operand's MXFP8 quantization (quant/mxfp8/quantize.h, Mxfp8GroupedQuantize): every
// group a tensor of its own, exactly as the recipe's tensor quantizer quantizes it, in one launch
// whatever the number of groups. One read of the input; each copy is one byte an element plus
// each group's E8M0 scales.

#include <cuda_runtime.h>

#include <cstdint>

#include "bench/operand_source.h"
#include "bench/recipes/block_scaled_quantizer.h"
#include "kernels/device_buffer.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"

namespace gemmscope {

class Mxfp8GroupedQuantizer : public BlockScaledQuantizer<Mxfp8GroupedLayout, uint8_t> {
 public:
  // `layout`: the source's (its groups, cols and copies). Uploads the groups' kernel parameters
  // on `stream`.
  Mxfp8GroupedQuantizer(const OperandSource& source, const Mxfp8GroupedLayout& layout,
                        cudaStream_t stream);

  void quantize(cudaStream_t stream) override;
  // A group without rows has an empty copy.
  QuantizedTensor copy(bool columnwise, int64_t group) const override;
  size_t launches() const override;

 private:
  Mxfp8GroupedQuantize launch_;
  DeviceBuffer<uint8_t> workspace_;
};

}  // namespace gemmscope
