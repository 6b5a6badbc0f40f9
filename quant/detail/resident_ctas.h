#pragma once
// How many CTAs of a kernel the current GPU holds at once: the grid of a kernel whose CTAs
// walk the work in a loop (one wave, each CTA's set-up paid once).

#include <cuda_runtime.h>

#include <cstdint>

#include "quant/cuda_check.h"

namespace gemmscope::detail {

template <typename Kernel>
int64_t resident_ctas(Kernel kernel, int threads_per_cta) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads_per_cta, 0));
  return static_cast<int64_t>(sms) * per_sm;
}

}  // namespace gemmscope::detail
