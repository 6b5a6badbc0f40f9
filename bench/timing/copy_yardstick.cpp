#include "bench/timing/copy_yardstick.h"

#include <algorithm>
#include <vector>

#include "bench/timing/iteration_timer.h"
#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

double CopyYardstick::gbps(double bytes_moved) {
  // Whole 16-byte vectors, as the quantization kernels move them.
  const size_t copy_bytes = static_cast<size_t>(bytes_moved / 2) / 16 * 16;
  if (copy_bytes == 0)
    return 0;
  if (const auto known = gbps_by_copy_bytes_.find(copy_bytes); known != gbps_by_copy_bytes_.end())
    return known->second;
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (2 * copy_bytes > free_bytes)
    return gbps_by_copy_bytes_[copy_bytes] = 0;
  DeviceBuffer<unsigned char> source(copy_bytes);
  DeviceBuffer<unsigned char> destination(copy_bytes);
  CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5A, copy_bytes, stream_));
  const auto copy = [&](cudaStream_t stream, size_t /*sample*/) {
    CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), copy_bytes,
                               cudaMemcpyDeviceToDevice, stream));
  };
  copy(stream_, 0);
  TimedBatch batch;
  timer_.enqueue_batch(stream_, kSamples, copy, batch);
  std::vector<double> seconds = batch.wait();
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::nth_element(seconds.begin(), seconds.begin() + kSamples / 2, seconds.end());
  const double median = seconds[kSamples / 2];
  return gbps_by_copy_bytes_[copy_bytes] = median > 0 ? 2.0 * copy_bytes / median / 1e9 : 0;
}

}  // namespace gemmscope
