#pragma once
// Device building blocks of the amax kernels (one tensor's in quant/fp8/tensorwise.cu, every
// group's in quant/fp8/detail/tile_cast.cu): one thread's share of the max |x| of a BF16 range, and
// the block-wide reduction that publishes it with one atomic max.

#include <cstdint>

#include "quant/detail/fp8_device.cuh"

namespace gemmscope::detail {

constexpr int kAmaxThreads = 512;
constexpr int kAmaxUnroll = 4;  // 16-byte loads in flight per thread

// max_magnitudes() over the elements first, first + stride, ... of `count` at `input`.
// Vectorised: 8 BF16 per 16-byte load, kAmaxUnroll loads in flight, the count % 8 tail picked up
// by the first threads; the input must then be 16-byte aligned. Otherwise one at a time.
template <bool kVectorized>
__device__ __forceinline__ uint32_t range_magnitudes(const uint16_t* __restrict__ input,
                                                     int64_t count, int64_t first, int64_t stride) {
  uint32_t lanes = 0;
  if constexpr (kVectorized) {
    const auto* vectors = reinterpret_cast<const uint4*>(input);
    const int64_t vector_count = count / 8;
    int64_t i = first;
    for (; i + (kAmaxUnroll - 1) * stride < vector_count; i += kAmaxUnroll * stride) {
      uint4 loaded[kAmaxUnroll];
#pragma unroll
      for (int u = 0; u < kAmaxUnroll; ++u)
        loaded[u] = __ldg(vectors + i + u * stride);
#pragma unroll
      for (int u = 0; u < kAmaxUnroll; ++u)
        lanes = max_magnitudes(lanes, max_magnitudes(loaded[u]));
    }
    for (; i < vector_count; i += stride)
      lanes = max_magnitudes(lanes, max_magnitudes(__ldg(vectors + i)));
    const int64_t tail = vector_count * 8 + first;
    if (tail < count)
      lanes = max_magnitudes(lanes, static_cast<uint32_t>(__ldg(input + tail)));
  } else {
    for (int64_t i = first; i < count; i += stride)
      lanes = max_magnitudes(lanes, static_cast<uint32_t>(__ldg(input + i)));
  }
  return lanes;
}

// Block-wide max of the threads' range_magnitudes(), then one atomic max into *amax (a block of
// kAmaxThreads; every thread must call it).
__device__ __forceinline__ void publish_block_amax(uint32_t lanes, float* amax) {
  __shared__ uint32_t warp_bits[kAmaxThreads / 32];
  const int lane = threadIdx.x % 32;
  uint32_t amax_bits = __reduce_max_sync(0xffffffffu, lanes_to_amax_bits(finish_magnitudes(lanes)));
  if (lane == 0)
    warp_bits[threadIdx.x / 32] = amax_bits;
  __syncthreads();
  if (threadIdx.x < 32) {
    amax_bits = lane < kAmaxThreads / 32 ? warp_bits[lane] : 0u;
    amax_bits = __reduce_max_sync(0xffffffffu, amax_bits);
    if (lane == 0 && amax_bits != 0)
      atomicMax(reinterpret_cast<unsigned int*>(amax), amax_bits);
  }
}

}  // namespace gemmscope::detail
