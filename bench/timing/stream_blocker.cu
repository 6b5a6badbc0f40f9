#include "bench/timing/stream_blocker.h"

#include <cstdint>

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void spin_until_released(const volatile int* release_flag, volatile int* timeout_flag,
                                    uint64_t timeout_ns) {
  const uint64_t start = global_timer_ns();
  while (*release_flag == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timeout_flag = 1;
      return;
    }
  }
}

}  // namespace

StreamBlocker::StreamBlocker() {
  void* flags = nullptr;
  CUDA_CHECK(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  release_flag_ = static_cast<volatile int*>(flags);
  timeout_flag_ = release_flag_ + 1;
  *release_flag_ = 1;
  *timeout_flag_ = 0;
}

StreamBlocker::~StreamBlocker() {
  release();
  cudaFreeHost(const_cast<int*>(release_flag_));
}

void StreamBlocker::block(cudaStream_t stream) {
  *release_flag_ = 0;
  *timeout_flag_ = 0;
  // Host-mapped memory is addressable from the GPU through unified addressing.
  spin_until_released<<<1, 1, 0, stream>>>(release_flag_, timeout_flag_,
                                           static_cast<uint64_t>(kTimeoutSeconds * 1e9));
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) {
    *release_flag_ = 1;
    throw_cuda_error(launch, "spin_until_released<<<>>>", __FILE__, __LINE__);
  }
}

void StreamBlocker::release() {
  *release_flag_ = 1;
}

bool StreamBlocker::timed_out() const {
  return *timeout_flag_ != 0;
}

}  // namespace gemmscope
