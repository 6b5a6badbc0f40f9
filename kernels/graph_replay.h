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
  // Captures what `enqueue` puts on a stream made for the capture (so that a replay may go to
  // the legacy default stream, which cannot be captured) and instantiates it: at planning time,
  // so that no timed run pays for it. Nothing runs yet. The graph keeps the pointers, sizes and
  // parameters of the capture. Throws CudaError when the work cannot be captured (a
  // synchronisation or an allocation inside `enqueue`).
  explicit GraphReplay(const std::function<void(cudaStream_t)>& enqueue);
  ~GraphReplay();
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;

  // Enqueues the captured work on `stream`, one graph launch.
  void launch(cudaStream_t stream) const;

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gemmscope
