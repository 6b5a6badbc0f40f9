#pragma once
// The device-to-device copy bandwidth of this GPU: the yardstick quantization kernels are
// measured against (they, too, read one tensor and write another).

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/device_buffer.h"

namespace gemmscope {

// A device-to-device copy between two buffers of its own, the source filled with a non-zero
// pattern: the work every copy yardstick times (this one and bench/timing/copy_yardstick.h).
class DeviceCopy {
 public:
  // Allocates both buffers (CudaError cudaErrorMemoryAllocation where they do not fit) and
  // enqueues the source's fill on `stream`.
  DeviceCopy(size_t bytes, cudaStream_t stream);
  void enqueue(cudaStream_t stream) const;
  // The rate of a copy that took `seconds`: bytes read plus bytes written per second, / 1e9.
  double gbps(double seconds) const;

 private:
  DeviceBuffer<unsigned char> source_;
  DeviceBuffer<unsigned char> destination_;
};

// Median over several cudaMemcpyAsync of 512 MiB, counting bytes read plus bytes written,
// in GB/s (1e9 bytes per second). Synchronises `stream`.
double measure_copy_gbps(cudaStream_t stream);

}  // namespace gemmscope
