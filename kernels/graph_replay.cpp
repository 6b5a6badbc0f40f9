#include "kernels/graph_replay.h"

#include "quant/cuda_check.h"

namespace gemmscope {

GraphReplay::~GraphReplay() {
  // Not checked: a destructor must not throw.
  if (exec_ != nullptr)
    cudaGraphExecDestroy(exec_);
  if (capture_stream_ != nullptr)
    cudaStreamDestroy(capture_stream_);
}

void GraphReplay::capture(const std::function<void(cudaStream_t)>& enqueue) {
  if (capture_stream_ == nullptr)
    CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
  // Thread-local: a CUDA call of this thread that is not allowed during a capture (a
  // synchronisation, an allocation) fails the capture instead of going through unseen.
  CUDA_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    enqueue(capture_stream_);
  } catch (...) {
    // End the capture, so that the stream is usable again, and discard what it holds.
    if (cudaStreamEndCapture(capture_stream_, &graph) == cudaSuccess && graph != nullptr)
      cudaGraphDestroy(graph);
    throw;
  }
  CUDA_CHECK(cudaStreamEndCapture(capture_stream_, &graph));
  const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);
  if (instantiated != cudaSuccess)
    exec_ = nullptr;
  CUDA_CHECK(instantiated);
}

void GraphReplay::launch(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue) {
  if (exec_ == nullptr)
    capture(enqueue);
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

}  // namespace gemmscope
