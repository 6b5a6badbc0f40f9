#include "kernels/copy_bandwidth.h"

#include <algorithm>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/cuda_check.h"

namespace gemmscope {

double measure_copy_gbps(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{512} << 20;  // far beyond any L2
  constexpr int kWarmups = 2;
  constexpr int kSamples = 10;
  DeviceBuffer<unsigned char> source(kBytes);
  DeviceBuffer<unsigned char> destination(kBytes);
  CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5A, kBytes, stream));
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> milliseconds;
  try {
    for (int i = 0; i < kWarmups + kSamples; ++i) {
      CUDA_CHECK(cudaEventRecord(start, stream));
      CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), kBytes, cudaMemcpyDeviceToDevice,
                                 stream));
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (i >= kWarmups)
        milliseconds.push_back(ms);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(milliseconds.begin(), milliseconds.begin() + kSamples / 2, milliseconds.end());
  const double median_seconds = milliseconds[kSamples / 2] * 1e-3;
  return 2.0 * kBytes / median_seconds / 1e9;
}

}  // namespace gemmscope
