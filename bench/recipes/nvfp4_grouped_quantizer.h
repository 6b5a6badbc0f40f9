#pragma once
// A grouped operand's NVFP4 quantization (quant/nvfp4/quantize.h, Nvfp4GroupedQuantize): every
// group a tensor of its own, with its own amaxes and tensor scalars, exactly as the recipe's
// tensor quantizer quantizes it, in three launches whatever the number of groups (a memset and
// the amax kernel, then the quantize kernel). Two reads of the input; each copy is half a byte
// an element plus each group's E4M3 scales.

#include <cuda_runtime.h>

#include <cstdint>

#include "bench/operand_source.h"
#include "bench/recipes/block_scaled_quantizer.h"
#include "kernels/device_buffer.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"

namespace gemmscope {

class Nvfp4GroupedQuantizer : public BlockScaledQuantizer<Nvfp4GroupedLayout, uint8_t> {
 public:
  // `layout`: the source's (its groups, cols and copies), made with `options`. Uploads the
  // groups' kernel parameters on `stream`.
  Nvfp4GroupedQuantizer(const OperandSource& source, const Nvfp4GroupedLayout& layout,
                        const Nvfp4Options& options, cudaStream_t stream);

  void quantize(cudaStream_t stream) override;
  // A group without rows has an empty copy.
  QuantizedTensor copy(bool columnwise, int64_t group) const override;
  size_t launches() const override;

 private:
  DeviceBuffer<Nvfp4TensorScalars> scalars_;  // one per group
  Nvfp4GroupedQuantize launch_;
  DeviceBuffer<uint8_t> workspace_;
};

}  // namespace gemmscope
