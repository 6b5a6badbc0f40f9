#pragma once
// Work of many small launches, captured once into a CUDA graph and replayed with one launch.
// The emulated grouped GEMM (MXFP8, NVFP4 on Hopper) launches five kernels an expert: at 128
// experts the host takes longer to enqueue them than the GPU to run them, so timed one launch
// at a time their time would be the host's. Replayed as a graph, it is the GPU's work.

#include <cuda_runtime.h>

#include <functional>

namespace gemmscope {

class GraphReplay {
 public:
  GraphReplay() = default;
  ~GraphReplay();
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;

  // The first call captures what `enqueue` puts on the stream it is given (a stream of this
  // object's own, so that `stream` may be the legacy default stream) and instantiates it; every
  // call then launches the graph on `stream`. The graph keeps the pointers, sizes and
  // parameters of the capture: `enqueue` must enqueue the same work every time.
  void launch(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue);

  bool captured() const { return exec_ != nullptr; }

 private:
  void capture(const std::function<void(cudaStream_t)>& enqueue);

  cudaStream_t capture_stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gemmscope
