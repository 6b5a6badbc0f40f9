#include "bench/iteration_timer.h"

#include <stdexcept>

#include "quant/cuda_check.h"

namespace gemmscope {

IterationTimer::IterationTimer(bool flush_l2, bool hold_stream)
    : l2_flush_(flush_l2 ? std::make_unique<L2Flush>() : nullptr),
      blocker_(hold_stream ? std::make_unique<StreamBlocker>() : nullptr) {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

IterationTimer::~IterationTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

double IterationTimer::time(cudaStream_t stream, const std::function<void(cudaStream_t)>& work) {
  if (l2_flush_)
    l2_flush_->flush(stream);
  if (blocker_)
    blocker_->block(stream);
  try {
    CUDA_CHECK(cudaEventRecord(start_, stream));
    work(stream);
    CUDA_CHECK(cudaEventRecord(stop_, stream));
  } catch (...) {
    if (blocker_)
      blocker_->release();
    throw;
  }
  if (blocker_)
    blocker_->release();
  CUDA_CHECK(cudaEventSynchronize(stop_));
  if (blocker_ && blocker_->timed_out()) {
    throw std::runtime_error(
        "the stream blocker timed out before the work was enqueued; the host is too slow or "
        "the work queue is full, so this iteration's time would include host overhead");
  }
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms * 1e-3;
}

}  // namespace gemmscope
