#pragma once
// Holds a stream while the host enqueues the work to be timed, so that the GPU starts the
// timed region only once everything is queued: launch latency and host overhead then fall
// outside the CUDA events (nvbench's "blocking kernel"). The spinning kernel gives up after a
// timeout, so a host that never releases it cannot hang the GPU; `timed_out()` says if it did.

#include <cuda_runtime.h>

namespace gemmscope {

class StreamBlocker {
 public:
  StreamBlocker();
  ~StreamBlocker();
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  // Enqueues the spinning kernel on `stream`; the stream stays held until release().
  void block(cudaStream_t stream);
  // Lets the spinning kernel finish. Safe to call when nothing is blocked.
  void release();
  // After the stream has synchronised: whether the last block ended by timeout, not release().
  bool timed_out() const;

  static constexpr double kTimeoutSeconds = 10.0;

 private:
  volatile int* release_flag_ = nullptr;  // host-mapped: written by the host, read by the GPU
  volatile int* timeout_flag_ = nullptr;  // host-mapped: written by the GPU on timeout
};

}  // namespace gemmscope
