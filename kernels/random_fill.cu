#include "kernels/random_fill.h"

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

// SplitMix64 finaliser: a cheap, well-mixed hash from a counter to 64 random bits.
__device__ uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Box-Muller on two 32-bit uniforms from one hash; u1 is in (0, 1], so log() is finite.
__device__ float normal_at(uint64_t seed, size_t index) {
  const uint64_t bits = mix64(mix64(seed) ^ index);
  const float u1 = (static_cast<uint32_t>(bits >> 32) + 1.0f) * 0x1.0p-32f;
  const float u2 = static_cast<uint32_t>(bits) * 0x1.0p-32f;
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__device__ void store_non_zero(float* out, float value, float fallback) {
  *out = value != 0.0f ? value : fallback;
}

__device__ void store_non_zero(__nv_bfloat16* out, float value, float fallback) {
  const __nv_bfloat16 rounded = __float2bfloat16(value);
  *out = __bfloat162float(rounded) != 0.0f ? rounded : __float2bfloat16(fallback);
}

template <typename T>
__global__ void fill_normal_kernel(T* out, size_t count, uint64_t seed, float mean, float stddev) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    store_non_zero(&out[i], mean + stddev * normal_at(seed, i), stddev);
  }
}

template <typename T>
void launch_fill(T* out, size_t count, uint64_t seed, float mean, float stddev,
                 cudaStream_t stream) {
  if (count == 0)
    return;
  constexpr int kThreads = 256;
  const size_t blocks_needed = (count + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks_needed < 65536 ? blocks_needed : 65536);
  fill_normal_kernel<<<blocks, kThreads, 0, stream>>>(out, count, seed, mean, stddev);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void fill_normal(__nv_bfloat16* out, size_t count, uint64_t seed, float mean, float stddev,
                 cudaStream_t stream) {
  launch_fill(out, count, seed, mean, stddev, stream);
}

void fill_normal(float* out, size_t count, uint64_t seed, float mean, float stddev,
                 cudaStream_t stream) {
  launch_fill(out, count, seed, mean, stddev, stream);
}

}  // namespace gemmscope
