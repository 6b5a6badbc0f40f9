#pragma once
// Evicts the GPU's L2 cache by writing a buffer larger than it, so that each timed iteration
// reads its operands from memory, as a GEMM inside a training step does.

#include <cuda_runtime.h>

#include "kernels/device_buffer.h"

namespace gemmscope {

class L2Flush {
 public:
  // Sizes the buffer from the current device's L2 capacity.
  L2Flush();
  void flush(cudaStream_t stream) const;
  size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

}  // namespace gemmscope
