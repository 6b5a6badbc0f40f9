#pragma once
// How many CTAs of a kernel the current GPU holds at once: the grid of a kernel whose CTAs
// walk the work in a loop (one wave, each CTA's set-up paid once).

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "quant/base/cuda_check.h"

namespace gemmscope::detail {

// The answer never changes for a kernel, block size and device, and the occupancy query costs
// microseconds of host time, so each answer is asked for once and kept.
template <typename Kernel>
int64_t resident_ctas(Kernel kernel, int threads_per_cta) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int>, int64_t> known;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), threads_per_cta, device);
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = known.find(key);
  if (found != known.end())
    return found->second;
  int sms = 0;
  int per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads_per_cta, 0));
  const int64_t ctas = static_cast<int64_t>(sms) * per_sm;
  known.emplace(key, ctas);
  return ctas;
}

}  // namespace gemmscope::detail
