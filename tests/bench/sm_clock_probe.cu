#include "tests/bench/sm_clock_probe.h"

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/cuda_check.h"

namespace gemmscope::testing {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// out[2 * block] = cycles, out[2 * block + 1] = nanoseconds.
__global__ void spin_counting_cycles(uint64_t duration_ns, uint64_t* out) {
  if (threadIdx.x != 0)
    return;
  const uint64_t start_ns = global_timer_ns();
  const long long start_cycles = clock64();
  uint64_t now_ns = start_ns;
  while (now_ns - start_ns < duration_ns)
    now_ns = global_timer_ns();
  out[2 * blockIdx.x] = static_cast<uint64_t>(clock64() - start_cycles);
  out[2 * blockIdx.x + 1] = now_ns - start_ns;
}

}  // namespace

double spin_and_measure_sm_clock_mhz(double seconds, cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DeviceBuffer<uint64_t> out(2 * static_cast<size_t>(sms));
  spin_counting_cycles<<<sms, 32, 0, stream>>>(static_cast<uint64_t>(seconds * 1e9), out.get());
  CUDA_CHECK(cudaGetLastError());
  std::vector<uint64_t> host(out.size());
  CUDA_CHECK(cudaMemcpyAsync(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double mhz = 0;
  for (int block = 0; block < sms; ++block)
    mhz += static_cast<double>(host[2 * block]) / static_cast<double>(host[2 * block + 1]) * 1e3;
  return mhz / sms;
}

}  // namespace gemmscope::testing
