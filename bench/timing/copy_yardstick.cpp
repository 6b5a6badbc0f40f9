#include "bench/timing/copy_yardstick.h"

#include <vector>

#include "bench/timing/iteration_timer.h"
#include "bench/timing/sample_statistics.h"
#include "bench/timing/steady_state_run.h"
#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

// The samples go behind one hold of the stream, as a batch of cases' samples does.
static_assert(CopyYardstick::kSamples * (1 + kSampleOverheadLaunches) <= kMaxBatchLaunches);

double CopyYardstick::gbps(double bytes_moved) {
  // Whole 16-byte vectors, as the quantization kernels move them.
  const size_t copy_bytes = static_cast<size_t>(bytes_moved / 2) / 16 * 16;
  if (copy_bytes == 0)
    return 0;
  if (const auto known = gbps_by_copy_bytes_.find(copy_bytes); known != gbps_by_copy_bytes_.end())
    return known->second;
  DeviceBuffer<unsigned char> source;
  DeviceBuffer<unsigned char> destination;
  try {
    source = DeviceBuffer<unsigned char>(copy_bytes);
    destination = DeviceBuffer<unsigned char>(copy_bytes);
  } catch (const CudaError& e) {
    if (e.code() != cudaErrorMemoryAllocation)
      throw;
    cudaGetLastError();  // out-of-memory is not sticky; clear it for the next case
    return 0;
  }
  CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5A, copy_bytes, stream_));
  const auto copy = [&](cudaStream_t stream, size_t /*sample*/) {
    CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), copy_bytes,
                               cudaMemcpyDeviceToDevice, stream));
  };
  copy(stream_, 0);
  TimedBatch batch;
  timer_.enqueue_batch(stream_, kSamples, copy, batch);
  const double seconds = summarize_samples(batch.wait()).mean;
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return gbps_by_copy_bytes_[copy_bytes] = seconds > 0 ? 2.0 * copy_bytes / seconds / 1e9 : 0;
}

}  // namespace gemmscope
