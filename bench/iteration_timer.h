#pragma once
// Times one iteration of a case on the GPU's own timeline, the way nvbench measures "cold":
//   1. flush the L2 (optional), outside the events;
//   2. hold the stream with a spinning kernel while the host enqueues
//      start event -> the case's work -> stop event;
//   3. release the stream: the GPU runs the work back to back, so neither launch latency nor
//      host overhead lands between the events.
// Profilers that serialise kernel launches (ncu) would leave the spinning kernel waiting for a
// release that cannot come, so profiling runs turn step 2 off.

#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "kernels/event_timer.h"
#include "kernels/l2_flush.h"
#include "kernels/stream_blocker.h"

namespace gemmscope {

class IterationTimer {
 public:
  IterationTimer(bool flush_l2, bool hold_stream);

  // Enqueues `work` on `stream` between the events and returns its GPU time in seconds.
  // Synchronises on the stop event. Throws if the stream blocker timed out, since the
  // measurement would then include host time.
  double time(cudaStream_t stream, const std::function<void(cudaStream_t)>& work);

 private:
  std::unique_ptr<L2Flush> l2_flush_;       // null when flushing is off
  std::unique_ptr<StreamBlocker> blocker_;  // null when the stream is not held
  EventTimer events_;
};

}  // namespace gemmscope
