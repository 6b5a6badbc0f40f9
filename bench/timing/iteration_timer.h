#pragma once
// Times one iteration of a case on the GPU's own timeline, the way nvbench measures "cold":
//   1. flush the L2 (optional), outside the events;
//   2. hold the stream with a spinning kernel while the host enqueues
//      start event -> the case's work -> stop event;
//   3. release the stream: the GPU runs the work back to back, so neither launch latency nor
//      host overhead lands between the events.
// Profilers that serialise kernel launches (ncu) would leave the spinning kernel waiting for a
// release that cannot come, so profiling runs turn step 2 off.
//
// Batches (enqueue_batch) time several pieces of work the same way behind one hold of the
// stream, and return without waiting: the host enqueues the next batch while the GPU runs this
// one, so the GPU never idles between samples, as it does not in a training step. (Waiting
// for every sample leaves the GPU idle for a host round trip each time; under a power cap the
// clock then swings more, and with it the samples.)

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

#include "bench/timing/l2_flush.h"
#include "bench/timing/stream_blocker.h"
#include "kernels/event_timer.h"

namespace gemmscope {

// A batch of timed pieces of work in flight (IterationTimer::enqueue_batch). Reusable.
class TimedBatch {
 public:
  // Waits for the batch and returns each piece's GPU time in seconds, in enqueue order.
  // Throws if the stream blocker timed out (the times would then include host time).
  std::vector<double> wait();

 private:
  friend class IterationTimer;
  std::vector<std::unique_ptr<EventTimer>> timers_;  // grown as needed, kept for reuse
  size_t used_ = 0;
  // The blocker that held it; its timeout flag stays this batch's until the blocker's next
  // use, two batches later.
  const StreamBlocker* blocker_ = nullptr;
};

class IterationTimer {
 public:
  IterationTimer(bool flush_l2, bool hold_stream);

  // Enqueues `work` on `stream` between the events and returns its GPU time in seconds.
  // Synchronises on the stop event. Throws if the stream blocker timed out, since the
  // measurement would then include host time. `hold_stream` false: without holding it.
  double time(cudaStream_t stream, const std::function<void(cudaStream_t)>& work,
              bool hold_stream = true);

  // Enqueues pieces 0..count-1 of `work` (called as work(stream, i)) back to back into `batch`,
  // each between its own events with the L2 flushed before it, all behind one hold of the
  // stream, and returns without waiting; batch.wait() then gives their times. Keep a batch to
  // a few hundred launches: the stream queues them all while it is held. `hold_stream` false
  // enqueues this batch without holding the stream (for work too large to queue behind it).
  void enqueue_batch(cudaStream_t stream, size_t count,
                     const std::function<void(cudaStream_t, size_t)>& work, TimedBatch& batch,
                     bool hold_stream = true);

 private:
  std::unique_ptr<L2Flush> l2_flush_;       // null when flushing is off
  std::unique_ptr<StreamBlocker> blocker_;  // null when the stream is not held
  // Batches alternate between two blockers: the host may hold the next batch while the last
  // one's blocker has not run yet, and each blocker has one release flag.
  std::unique_ptr<StreamBlocker> batch_blockers_[2];
  int next_batch_blocker_ = 0;
  EventTimer events_;
};

}  // namespace gemmscope
