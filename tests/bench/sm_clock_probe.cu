#include "tests/bench/sm_clock_probe.h"

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope::testing {
namespace {

__device__ uint64_t global_timer_ns() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Thread 0 of each block: out[2 * block] = cycles, out[2 * block + 1] = nanoseconds. The
// other threads run FMA chains until the time is up; `sink` keeps the compiler from dropping them.
__global__ void busy_counting_cycles(uint64_t duration_ns, uint64_t* out, float* sink) {
  const uint64_t start_ns = global_timer_ns();
  if (threadIdx.x != 0) {
    float a = static_cast<float>(threadIdx.x);
    while (global_timer_ns() - start_ns < duration_ns) {
      for (int i = 0; i < 1024; ++i)
        a = fmaf(a, 1.0001f, 0.5f);
    }
    if (a == 1.2345f)
      *sink = a;
    return;
  }
  const long long start_cycles = clock64();
  uint64_t now_ns = start_ns;
  while (now_ns - start_ns < duration_ns)
    now_ns = global_timer_ns();
  out[2 * blockIdx.x] = static_cast<uint64_t>(clock64() - start_cycles);
  out[2 * blockIdx.x + 1] = now_ns - start_ns;
}

}  // namespace

double busy_sms_clock_mhz(double seconds, cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DeviceBuffer<uint64_t> out(2 * static_cast<size_t>(sms));
  DeviceBuffer<float> sink(1);
  busy_counting_cycles<<<sms, 1024, 0, stream>>>(static_cast<uint64_t>(seconds * 1e9), out.get(),
                                                 sink.get());
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
