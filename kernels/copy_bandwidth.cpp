#include "kernels/copy_bandwidth.h"

#include <algorithm>
#include <vector>

#include "kernels/event_timer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

DeviceCopy::DeviceCopy(size_t bytes, cudaStream_t stream) : source_(bytes), destination_(bytes) {
  CUDA_CHECK(cudaMemsetAsync(source_.get(), 0x5A, bytes, stream));
}

void DeviceCopy::enqueue(cudaStream_t stream) const {
  CUDA_CHECK(cudaMemcpyAsync(destination_.get(), source_.get(), source_.bytes(),
                             cudaMemcpyDeviceToDevice, stream));
}

double DeviceCopy::gbps(double seconds) const {
  return seconds > 0 ? 2.0 * static_cast<double>(source_.bytes()) / seconds / 1e9 : 0;
}

double measure_copy_gbps(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{512} << 20;  // far beyond any L2
  constexpr int kWarmups = 2;
  constexpr int kSamples = 10;
  const DeviceCopy copy(kBytes, stream);
  EventTimer timer;
  std::vector<float> milliseconds;
  for (int i = 0; i < kWarmups + kSamples; ++i) {
    timer.start(stream);
    copy.enqueue(stream);
    timer.stop(stream);
    const float ms = timer.elapsed_ms();
    if (i >= kWarmups)
      milliseconds.push_back(ms);
  }
  std::nth_element(milliseconds.begin(), milliseconds.begin() + kSamples / 2, milliseconds.end());
  return copy.gbps(milliseconds[kSamples / 2] * 1e-3);
}

}  // namespace gemmscope
