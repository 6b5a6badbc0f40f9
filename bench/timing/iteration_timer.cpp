#include "bench/timing/iteration_timer.h"

#include <stdexcept>

namespace gemmscope {
namespace {

constexpr const char* kBlockerTimedOut =
    "the stream blocker timed out before the work was enqueued; the host is too slow or the "
    "work queue is full, so the time would include host overhead";

}  // namespace

IterationTimer::IterationTimer(bool flush_l2, bool hold_stream)
    : l2_flush_(flush_l2 ? std::make_unique<L2Flush>() : nullptr),
      blocker_(hold_stream ? std::make_unique<StreamBlocker>() : nullptr) {
  if (hold_stream) {
    batch_blockers_[0] = std::make_unique<StreamBlocker>();
    batch_blockers_[1] = std::make_unique<StreamBlocker>();
  }
}

double IterationTimer::time(cudaStream_t stream, const std::function<void(cudaStream_t)>& work,
                            bool hold_stream) {
  StreamBlocker* blocker = hold_stream ? blocker_.get() : nullptr;
  if (l2_flush_)
    l2_flush_->flush(stream);
  if (blocker)
    blocker->block(stream);
  try {
    events_.start(stream);
    work(stream);
    events_.stop(stream);
  } catch (...) {
    if (blocker)
      blocker->release();
    throw;
  }
  if (blocker)
    blocker->release();
  const float ms = events_.elapsed_ms();
  if (blocker && blocker->timed_out())
    throw std::runtime_error(kBlockerTimedOut);
  return ms * 1e-3;
}

void IterationTimer::enqueue_batch(cudaStream_t stream, size_t count,
                                   const std::function<void(cudaStream_t, size_t)>& work,
                                   TimedBatch& batch, bool hold_stream) {
  while (batch.timers_.size() < count)
    batch.timers_.push_back(std::make_unique<EventTimer>());
  batch.used_ = 0;
  // The blocker queues behind whatever batch is still running, so it holds the stream only
  // if the host is slower than that batch: the GPU goes from one batch to the next.
  StreamBlocker* blocker = hold_stream ? batch_blockers_[next_batch_blocker_].get() : nullptr;
  batch.blocker_ = blocker;
  next_batch_blocker_ ^= 1;
  if (blocker)
    blocker->block(stream);
  try {
    for (size_t i = 0; i < count; ++i) {
      if (l2_flush_)
        l2_flush_->flush(stream);
      batch.timers_[i]->start(stream);
      work(stream, i);
      batch.timers_[i]->stop(stream);
      batch.used_ = i + 1;
    }
  } catch (...) {
    if (blocker)
      blocker->release();
    throw;
  }
  if (blocker)
    blocker->release();
}

std::vector<double> TimedBatch::wait() {
  std::vector<double> seconds;
  seconds.reserve(used_);
  for (size_t i = 0; i < used_; ++i)
    seconds.push_back(timers_[i]->elapsed_ms() * 1e-3);
  if (blocker_ != nullptr && blocker_->timed_out())
    throw std::runtime_error(kBlockerTimedOut);
  return seconds;
}

}  // namespace gemmscope
