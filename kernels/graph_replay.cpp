#include "kernels/graph_replay.h"

#include "quant/base/cuda_check.h"

namespace gemmscope {

namespace {

// Captures `enqueue` on `stream` and instantiates the graph.
cudaGraphExec_t capture(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue) {
  // Thread-local: a CUDA call of this thread that is not allowed during a capture (a
  // synchronisation, an allocation) fails the capture instead of going through unseen.
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    enqueue(stream);
  } catch (...) {
    // End the capture, so that the stream is usable again, and discard what it holds.
    if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph != nullptr)
      cudaGraphDestroy(graph);
    throw;
  }
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  CUDA_CHECK(instantiated);
  return exec;
}

}  // namespace

GraphReplay::GraphReplay(const std::function<void(cudaStream_t)>& enqueue) {
  // The stream serves the capture only: the graph does not need it afterwards.
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  try {
    exec_ = capture(stream, enqueue);
  } catch (...) {
    cudaStreamDestroy(stream);
    throw;
  }
  cudaStreamDestroy(stream);
}

GraphReplay::~GraphReplay() {
  cudaGraphExecDestroy(exec_);  // not checked: a destructor must not throw
}

void GraphReplay::launch(cudaStream_t stream) const {
  CUDA_CHECK(cudaGraphLaunch(exec_, stream));
}

}  // namespace gemmscope
