#include "bench/timing/l2_flush.h"

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

size_t flush_bytes() {
  int device = 0;
  int l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  // Twice the capacity: the L2 is not a perfect LRU, and one pass of its size leaves lines.
  return 2 * static_cast<size_t>(l2_bytes > 0 ? l2_bytes : 64 << 20);
}

}  // namespace

L2Flush::L2Flush() : buffer_(flush_bytes()) {}

void L2Flush::flush(cudaStream_t stream) const {
  CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
}

}  // namespace gemmscope
