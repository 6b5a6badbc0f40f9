#pragma once
// One BF16 tensor's quantization as a recipe performs it in a training step: the quantized
// copies a GEMM reads, their scales, and any per-step scale bookkeeping. Each quantizing recipe
// provides one; the same object serves its GEMM cases (timed inside autocast cases, run once
// before prequant cases) and its quantization cases (timed alone). A grouped operand
// (operand_source.h) is one quantizer too: it quantizes every group, each with its own scales.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

class OperandQuantizer {
 public:
  virtual ~OperandQuantizer() = default;
  // Enqueues the quantization of the source into the wanted copies, plus the recipe's per-step
  // bookkeeping (delayed scaling's history update). No host synchronisation.
  virtual void quantize(cudaStream_t stream) = 0;
  // Group g's copy written by quantize(): rowwise [rows_g, cols] or columnwise [cols, rows_g]
  // (g = 0 for a tensor that is not grouped).
  virtual QuantizedTensor copy(bool columnwise, int64_t group) const = 0;
  // Bytes the GPU reads plus writes in one quantize(), every pass over the data counted.
  virtual double bytes_moved() const = 0;
  // About how many kernels and memsets one quantize() launches, rounded up.
  virtual size_t launches() const { return kMaxLaunches; }

  // Launches of one tensor's quantize(), rounded up over every recipe: FP8Current's are the
  // most (a memset, then the amax, scale and cast kernels).
  static constexpr size_t kMaxLaunches = 5;
};

}  // namespace gemmscope
