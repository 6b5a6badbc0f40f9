#include "kernels/copy_bandwidth.h"

#include <algorithm>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/event_timer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

double measure_copy_gbps(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{512} << 20;  // far beyond any L2
  constexpr int kWarmups = 2;
  constexpr int kSamples = 10;
  DeviceBuffer<unsigned char> source(kBytes);
  DeviceBuffer<unsigned char> destination(kBytes);
  CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5A, kBytes, stream));
  EventTimer timer;
  std::vector<float> milliseconds;
  for (int i = 0; i < kWarmups + kSamples; ++i) {
    timer.start(stream);
    CUDA_CHECK(
        cudaMemcpyAsync(destination.get(), source.get(), kBytes, cudaMemcpyDeviceToDevice, stream));
    timer.stop(stream);
    const float ms = timer.elapsed_ms();
    if (i >= kWarmups)
      milliseconds.push_back(ms);
  }
  std::nth_element(milliseconds.begin(), milliseconds.begin() + kSamples / 2, milliseconds.end());
  const double median_seconds = milliseconds[kSamples / 2] * 1e-3;
  return 2.0 * kBytes / median_seconds / 1e9;
}

}  // namespace gemmscope
