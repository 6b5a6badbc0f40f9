#include "bench/timing/copy_yardstick.h"

#include <optional>

#include "bench/timing/iteration_timer.h"
#include "bench/timing/sample_statistics.h"
#include "bench/timing/steady_state_run.h"
#include "kernels/copy_bandwidth.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

// The samples go behind one hold of the stream, as a batch of cases' samples does.
static_assert(CopyYardstick::kSamples * (1 + kSampleOverheadLaunches) <= kMaxBatchLaunches);

double CopyYardstick::gbps(double bytes_moved) {
  if (bytes_moved < kMinBytesMoved)
    return 0;
  // Whole 16-byte vectors, as the quantization kernels move them.
  const size_t copy_bytes = static_cast<size_t>(bytes_moved / 2) / 16 * 16;
  if (const auto known = gbps_by_copy_bytes_.find(copy_bytes); known != gbps_by_copy_bytes_.end())
    return known->second;
  std::optional<DeviceCopy> copy;
  try {
    copy.emplace(copy_bytes, stream_);
  } catch (const CudaError& e) {
    if (e.code() != cudaErrorMemoryAllocation)
      throw;
    cudaGetLastError();  // out-of-memory is not sticky; clear it for the next case
    return 0;
  }
  copy->enqueue(stream_);
  TimedBatch batch;
  timer_.enqueue_batch(
      stream_, kSamples, [&](cudaStream_t stream, size_t /*sample*/) { copy->enqueue(stream); },
      batch);
  const double seconds = summarize_samples(batch.wait()).mean;
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return gbps_by_copy_bytes_[copy_bytes] = copy->gbps(seconds);
}

}  // namespace gemmscope
