#pragma once
// A pair of CUDA events around work enqueued on a stream: the GPU-timeline time between them.
// Owns its events, so an exception between start() and stop() leaks nothing.

#include <cuda_runtime.h>

namespace gemmscope {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the stop event and returns the milliseconds between the two.
  float elapsed_ms();

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace gemmscope
