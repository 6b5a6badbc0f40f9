#include "quant/fp8_tensorwise.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "quant/cuda_check.h"
#include "quant/detail/fp8_argument_checks.h"
#include "quant/detail/fp8_device.cuh"
#include "quant/detail/fp8_tile_cast.h"
#include "quant/fp8_format.h"
#include "quant/fp8_scale_layout.h"
#include "quant/fp8_scale_policy.h"

namespace gemmscope {
namespace {

constexpr int kAmaxThreads = 512;
constexpr int kAmaxBlocksPerSm = 2048 / kAmaxThreads;  // a full SM of resident threads
constexpr int kAmaxUnroll = 4;                         // 16-byte loads in flight per thread

// Block-wide max of non-negative FP32 bit patterns, then one atomic max into *amax.
__device__ void publish_block_amax(uint32_t amax_bits, float* amax) {
  __shared__ uint32_t warp_bits[kAmaxThreads / 32];
  const int lane = threadIdx.x % 32;
  amax_bits = __reduce_max_sync(0xffffffffu, amax_bits);
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

// Grid-stride amax. Vectorised: 8 BF16 per 16-byte load, kAmaxUnroll loads in flight, the
// count % 8 tail picked up by the first threads. Otherwise (misaligned input) one at a time.
template <bool kVectorized>
__global__ void __launch_bounds__(kAmaxThreads)
    amax_kernel(const uint16_t* __restrict__ input, int64_t count, float* amax) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
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
        lanes = detail::max_magnitudes(lanes, detail::max_magnitudes(loaded[u]));
    }
    for (; i < vector_count; i += stride)
      lanes = detail::max_magnitudes(lanes, detail::max_magnitudes(__ldg(vectors + i)));
    const int64_t tail = vector_count * 8 + first;
    if (tail < count)
      lanes = detail::max_magnitudes(lanes, static_cast<uint32_t>(__ldg(input + tail)));
  } else {
    for (int64_t i = first; i < count; i += stride) {
      lanes = detail::max_magnitudes(lanes, static_cast<uint32_t>(__ldg(input + i)));
    }
  }
  publish_block_amax(detail::lanes_to_amax_bits(detail::finish_magnitudes(lanes)), amax);
}

__global__ void current_scale_kernel(const float* amax, float fmt_max, float* scale,
                                     float* scale_inv) {
  const float new_scale = scale_from_amax(*amax, fmt_max, /*power_of_2=*/false);
  *scale = new_scale;
  *scale_inv = scale_inverse(new_scale);
}

int sm_count() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int count = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

}  // namespace

Fp8CurrentScalingState Fp8CurrentScalingState::in_buffer(float* buffer) {
  detail::require_not_null("Fp8CurrentScalingState::in_buffer", "buffer", buffer);
  return {buffer, buffer + 4, buffer + 8};
}

void compute_amax(const __nv_bfloat16* input, int64_t count, float* amax, cudaStream_t stream) {
  detail::require_not_null("compute_amax", "input", input);
  detail::require_not_null("compute_amax", "amax", amax);
  detail::require_positive("compute_amax", "count", count);

  CUDA_CHECK(cudaMemsetAsync(amax, 0, sizeof(float), stream));
  const bool vectorized = reinterpret_cast<uintptr_t>(input) % 16 == 0;
  const int64_t work_items = vectorized ? std::max<int64_t>(count / 8, 1) : count;
  const int64_t blocks = std::min<int64_t>(ceil_div(work_items, kAmaxThreads),
                                           static_cast<int64_t>(sm_count()) * kAmaxBlocksPerSm);
  const auto* bits = reinterpret_cast<const uint16_t*>(input);
  if (vectorized) {
    amax_kernel<true>
        <<<static_cast<unsigned int>(blocks), kAmaxThreads, 0, stream>>>(bits, count, amax);
  } else {
    amax_kernel<false>
        <<<static_cast<unsigned int>(blocks), kAmaxThreads, 0, stream>>>(bits, count, amax);
  }
  CUDA_CHECK_LAUNCH();
}

void compute_current_scale(const float* amax, ElementFormat format, float* scale, float* scale_inv,
                           cudaStream_t stream) {
  detail::require_not_null("compute_current_scale", "amax", amax);
  detail::require_not_null("compute_current_scale", "scale", scale);
  detail::require_not_null("compute_current_scale", "scale_inv", scale_inv);
  current_scale_kernel<<<1, 1, 0, stream>>>(amax, fp8_max_finite(format), scale, scale_inv);
  CUDA_CHECK_LAUNCH();
}

void cast_fp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, ElementFormat format,
              const float* scale, const Fp8CastTargets& targets, float* amax_record,
              cudaStream_t stream) {
  detail::require_not_null("cast_fp8", "input", input);
  detail::require_not_null("cast_fp8", "scale", scale);
  detail::require_positive("cast_fp8", "rows", rows);
  detail::require_positive("cast_fp8", "cols", cols);
  detail::require_some_copy("cast_fp8", targets.rowwise, targets.columnwise);
  require_fp8_format(format, "cast_fp8");

  detail::TileCastArgs args;
  args.input = input;
  args.rows = rows;
  args.cols = cols;
  args.format = format;
  args.scaling = detail::TileScaling::kTensorwise;
  args.rowwise = targets.rowwise;
  args.columnwise = targets.columnwise;
  args.scale = scale;
  args.amax_record = amax_record;
  detail::launch_tile_cast(args, stream);
}

void quantize_fp8_current(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          ElementFormat format, const Fp8CurrentScalingState& state,
                          const Fp8CastTargets& targets, cudaStream_t stream) {
  detail::require_positive("quantize_fp8_current", "rows", rows);
  detail::require_positive("quantize_fp8_current", "cols", cols);
  detail::require_some_copy("quantize_fp8_current", targets.rowwise, targets.columnwise);
  require_fp8_format(format, "quantize_fp8_current");
  compute_amax(input, rows * cols, state.amax, stream);
  compute_current_scale(state.amax, format, state.scale, state.scale_inv, stream);
  cast_fp8(input, rows, cols, format, state.scale, targets, nullptr, stream);
}

}  // namespace gemmscope
