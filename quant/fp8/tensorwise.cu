#include "quant/fp8/tensorwise.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/fp8/detail/amax.cuh"
#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/detail/tile_cast.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

using detail::kAmaxThreads;
constexpr int kAmaxBlocksPerSm = 2048 / kAmaxThreads;  // a full SM of resident threads

// Where in_buffer() puts a state's slots, each 16-byte aligned.
constexpr int64_t kAmaxSlot = 0;
constexpr int64_t kScaleSlot = 4;
constexpr int64_t kScaleInvSlot = 8;

// Grid-stride amax of one tensor.
template <bool kVectorized>
__global__ void __launch_bounds__(kAmaxThreads)
    amax_kernel(const uint16_t* __restrict__ input, int64_t count, float* amax) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  detail::publish_block_amax(detail::range_magnitudes<kVectorized>(input, count, first, stride),
                             amax);
}

__device__ __forceinline__ void write_current_scale(const float* amax, float fmt_max, float* scale,
                                                    float* scale_inv) {
  const float new_scale = scale_from_amax(*amax, fmt_max, /*power_of_2=*/false);
  *scale = new_scale;
  *scale_inv = scale_inverse(new_scale);
}

__global__ void current_scale_kernel(const float* amax, float fmt_max, float* scale,
                                     float* scale_inv) {
  write_current_scale(amax, fmt_max, scale, scale_inv);
}

// Thread i: the state at states + i * Fp8CurrentScalingState::kBufferFloats.
__global__ void current_scales_kernel(float* states, int64_t count, float fmt_max) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  float* state = states + i * Fp8CurrentScalingState::kBufferFloats;
  write_current_scale(state + kAmaxSlot, fmt_max, state + kScaleSlot, state + kScaleInvSlot);
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
  return {buffer + kAmaxSlot, buffer + kScaleSlot, buffer + kScaleInvSlot};
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

void compute_current_scales(float* states, int64_t count, ElementFormat format,
                            cudaStream_t stream) {
  detail::require_not_null("compute_current_scales", "states", states);
  detail::require_positive("compute_current_scales", "count", count);
  require_fp8_format(format, "compute_current_scales");
  constexpr int kThreads = 128;
  current_scales_kernel<<<static_cast<unsigned int>(ceil_div(count, kThreads)), kThreads, 0,
                          stream>>>(states, count, fp8_max_finite(format));
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
