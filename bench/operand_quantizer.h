#pragma once
// One BF16 tensor's quantization as a recipe performs it in a training step: the quantized
// copies a GEMM reads, their scales, and any per-step scale bookkeeping. Each quantizing recipe
// provides one; the same object serves its GEMM cases (timed inside autocast cases, run once
// before prequant cases) and its quantization cases (timed alone).

#include <cuda_runtime.h>

#include <cstddef>

#include "quant/quantized_tensor.h"

namespace gemmscope {

class OperandQuantizer {
 public:
  virtual ~OperandQuantizer() = default;
  // Enqueues the quantization of the source into the wanted copies, plus the recipe's per-step
  // bookkeeping (delayed scaling's history update). No host synchronisation.
  virtual void quantize(cudaStream_t stream) = 0;
  // A copy written by quantize(): rowwise [rows, cols] or columnwise [cols, rows].
  virtual QuantizedTensor copy(bool columnwise) const = 0;
  // Bytes the GPU reads plus writes in one quantize(), every pass over the data counted.
  virtual double bytes_moved() const = 0;

  // Launches of one quantize(), rounded up over every recipe: FP8Current's are the most (a
  // memset, then the amax, scale and cast kernels).
  static constexpr size_t kMaxLaunches = 5;
};

}  // namespace gemmscope
