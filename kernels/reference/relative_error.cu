#include "kernels/reference/relative_error.h"

#include <cmath>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

constexpr int kThreads = 256;

// sums[0] += sum (got - expected)^2, sums[1] += sum expected^2.
__global__ void squared_norms_kernel(const __nv_bfloat16* got, const float* expected, size_t count,
                                     double* sums) {
  double diff_sq = 0.0;
  double ref_sq = 0.0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double e = expected[i];
    const double d = static_cast<double>(__bfloat162float(got[i])) - e;
    diff_sq += d * d;
    ref_sq += e * e;
  }
  __shared__ double partial[2][kThreads];
  partial[0][threadIdx.x] = diff_sq;
  partial[1][threadIdx.x] = ref_sq;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      partial[0][threadIdx.x] += partial[0][threadIdx.x + half];
      partial[1][threadIdx.x] += partial[1][threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], partial[0][0]);
    atomicAdd(&sums[1], partial[1][0]);
  }
}

}  // namespace

double relative_frobenius_error(const __nv_bfloat16* got, const float* expected, size_t count,
                                cudaStream_t stream) {
  DeviceBuffer<double> sums(2);
  CUDA_CHECK(cudaMemsetAsync(sums.get(), 0, sums.bytes(), stream));
  const size_t blocks_needed = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < 4096 ? blocks_needed : 4096);
  if (blocks > 0) {
    squared_norms_kernel<<<blocks, kThreads, 0, stream>>>(got, expected, count, sums.get());
    CUDA_CHECK_LAUNCH();
  }
  double host[2] = {0.0, 0.0};
  CUDA_CHECK(cudaMemcpyAsync(host, sums.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::sqrt(host[0]) / std::sqrt(host[1]);
}

}  // namespace gemmscope
