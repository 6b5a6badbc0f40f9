#include "bench/iteration_timer.h"

#include <stdexcept>

namespace gemmscope {

IterationTimer::IterationTimer(bool flush_l2, bool hold_stream)
    : l2_flush_(flush_l2 ? std::make_unique<L2Flush>() : nullptr),
      blocker_(hold_stream ? std::make_unique<StreamBlocker>() : nullptr) {}

double IterationTimer::time(cudaStream_t stream, const std::function<void(cudaStream_t)>& work) {
  if (l2_flush_)
    l2_flush_->flush(stream);
  if (blocker_)
    blocker_->block(stream);
  try {
    events_.start(stream);
    work(stream);
    events_.stop(stream);
  } catch (...) {
    if (blocker_)
      blocker_->release();
    throw;
  }
  if (blocker_)
    blocker_->release();
  const float ms = events_.elapsed_ms();
  if (blocker_ && blocker_->timed_out()) {
    throw std::runtime_error(
        "the stream blocker timed out before the work was enqueued; the host is too slow or "
        "the work queue is full, so this iteration's time would include host overhead");
  }
  return ms * 1e-3;
}

}  // namespace gemmscope
