#pragma once
// The device-to-device copy bandwidth of this GPU: the yardstick quantization kernels are
// measured against (they, too, read one tensor and write another).

#include <cuda_runtime.h>

namespace gemmscope {

// Median over several cudaMemcpyAsync of 512 MiB, counting bytes read plus bytes written,
// in GB/s (1e9 bytes per second). Synchronises `stream`.
double measure_copy_gbps(cudaStream_t stream);

}  // namespace gemmscope
