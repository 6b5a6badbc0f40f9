#include "kernels/event_timer.h"

#include "quant/base/cuda_check.h"

namespace gemmscope {

EventTimer::EventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  const cudaError_t status = cudaEventCreate(&stop_);
  if (status != cudaSuccess) {
    cudaEventDestroy(start_);
    throw_cuda_error(status, "cudaEventCreate(&stop_)", __FILE__, __LINE__);
  }
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(start_, stream));
}

void EventTimer::stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
}

float EventTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace gemmscope
