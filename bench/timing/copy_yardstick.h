#pragma once
// The copy a quantization case is held against at its own size: a DeviceCopy
// (kernels/copy_bandwidth.h) that moves as many bytes as the case (half read, half written), timed
// as a one-launch case is (IterationTimer: the L2 flushed before each sample unless
// --l2_flush=false, outside the events; samples batched behind a held stream; the mean less
// outliers, sample_statistics.h).
//
// Why a second yardstick beside the run's copy bandwidth (kernels/copy_bandwidth.h, 512 MiB back
// to back): two costs weigh on a case that a long copy spreads thin. The flush zeroes twice the
// L2's size and leaves it full of dirty lines, which the timed work writes back to memory before
// it can use those lines (as work after a kernel that wrote its output does in a training step);
// and every kernel's start and tail weigh more the smaller the tensor. A copy of the case's bytes
// pays both, so `pct_of_same_bytes_copy` says how close a kernel came to what moving its bytes
// costs in that case, and `pct_of_copy_bw` how close to the GPU's bandwidth. A copy is half
// writes: a read-heavier kernel can exceed 100% of either.

#include <cuda_runtime.h>

#include <cstddef>
#include <map>

namespace gemmscope {

class IterationTimer;

class CopyYardstick {
 public:
  static constexpr size_t kSamples = 21;
  // Less is not one 16-byte vector copied: no yardstick.
  static constexpr double kMinBytesMoved = 32;

  // Times on `stream` with `timer` (which flushes the L2 or not, holds the stream or not, as the
  // run's cases are timed); both outlive the yardstick.
  CopyYardstick(IterationTimer& timer, cudaStream_t stream) : timer_(timer), stream_(stream) {}

  // GB/s (bytes read plus bytes written, per second, / 1e9) of a copy of bytes_moved / 2 bytes,
  // measured on the first call for a size (after one untimed copy; the stream is then
  // synchronised) and remembered. Allocates the copy's two buffers for the measurement only.
  // 0, remembered for nothing, below kMinBytesMoved or where the buffers do not fit in the GPU's
  // memory now (the allocation's error is cleared). Other CUDA errors throw CudaError.
  double gbps(double bytes_moved);

 private:
  IterationTimer& timer_;
  cudaStream_t stream_;
  std::map<size_t, double> gbps_by_copy_bytes_;
};

}  // namespace gemmscope
