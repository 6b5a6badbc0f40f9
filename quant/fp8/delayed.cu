#include "quant/fp8/delayed.h"

#include "quant/base/cuda_check.h"
#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

// Two rounds of the update kernel's roll cover the default 1024-entry history, and their loads
// are in flight together.
constexpr int kUpdateThreads = 512;
// A state's slots in its buffer, each 16-byte aligned.
constexpr int64_t kScaleOffset = 0;
constexpr int64_t kScaleInvOffset = 4;
constexpr int64_t kHistoryOffset = 8;

__device__ __forceinline__ void reset_state(float* scale, float* scale_inv, float* history,
                                            int64_t length) {
  if (threadIdx.x == 0) {
    *scale = 1.0f;
    *scale_inv = 1.0f;
  }
  for (int64_t i = threadIdx.x; i < length; i += blockDim.x)
    history[i] = 0.0f;
}

__device__ __forceinline__ void update_state(float* history, int64_t length, float fmt_max,
                                             float* scale, float* scale_inv) {
  __shared__ float warp_max[kUpdateThreads / 32];
  // The loads come first and together: the kernel's time is their latency, not its work.
  const float newest = history[0];
  const float previous_scale = threadIdx.x == 0 ? *scale : 1.0f;
  // Entry i of the rolled history (the newest amax wraps around to the end).
  const auto rolled = [&](int64_t i) { return i + 1 < length ? history[i + 1] : newest; };
  float moved = threadIdx.x < length ? rolled(threadIdx.x) : 0.0f;
  float local_max = 0.0f;
  // Roll left in place, kUpdateThreads entries per round: a round reads entries
  // [base + 1, base + kUpdateThreads] and writes [base, base + kUpdateThreads - 1], and its
  // barrier orders its reads before its writes, so no entry is overwritten before it is read.
  // Each round also loads the next round's entry, which lies past everything this round writes.
  for (int64_t base = 0; base < length; base += kUpdateThreads) {
    const int64_t i = base + threadIdx.x;
    const float next = i + kUpdateThreads < length ? rolled(i + kUpdateThreads) : 0.0f;
    if (i < length)
      local_max = fmaxf(local_max, moved);
    __syncthreads();
    if (i < length)
      history[i] = i == 0 ? 0.0f : moved;
    moved = next;
  }

  for (int offset = 16; offset > 0; offset /= 2) {
    local_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, offset));
  }
  if (threadIdx.x % 32 == 0)
    warp_max[threadIdx.x / 32] = local_max;
  __syncthreads();
  if (threadIdx.x == 0) {
    float amax = 0.0f;
    for (int w = 0; w < kUpdateThreads / 32; ++w)
      amax = fmaxf(amax, warp_max[w]);
    const float new_scale = delayed_scale_from_amax(amax, fmt_max, previous_scale);
    *scale = new_scale;
    *scale_inv = scale_inverse(new_scale);
  }
}

__global__ void __launch_bounds__(kUpdateThreads)
    reset_kernel(float* scale, float* scale_inv, float* history, int64_t length) {
  reset_state(scale, scale_inv, history, length);
}

__global__ void __launch_bounds__(kUpdateThreads)
    update_kernel(float* history, int64_t length, float fmt_max, float* scale, float* scale_inv) {
  update_state(history, length, fmt_max, scale, scale_inv);
}

// Block i: the state at states + i * stride, laid out as in_buffer() lays it out.
__global__ void __launch_bounds__(kUpdateThreads)
    reset_states_kernel(float* states, int64_t stride, int64_t length) {
  float* state = states + blockIdx.x * stride;
  reset_state(state + kScaleOffset, state + kScaleInvOffset, state + kHistoryOffset, length);
}

__global__ void __launch_bounds__(kUpdateThreads)
    update_states_kernel(float* states, int64_t stride, int64_t length, float fmt_max) {
  float* state = states + blockIdx.x * stride;
  update_state(state + kHistoryOffset, length, fmt_max, state + kScaleOffset,
               state + kScaleInvOffset);
}

void require_state(const char* function, const Fp8DelayedScalingState& state) {
  detail::require_not_null(function, "state.scale", state.scale);
  detail::require_not_null(function, "state.scale_inv", state.scale_inv);
  detail::require_not_null(function, "state.amax_history", state.amax_history);
  detail::require_positive(function, "state.history_length", state.history_length);
}

}  // namespace

int64_t Fp8DelayedScalingState::buffer_floats(int64_t history_length) {
  detail::require_positive("Fp8DelayedScalingState::buffer_floats", "history_length",
                           history_length);
  return round_up(kHistoryOffset + history_length, 4);  // 4 floats: 16 bytes
}

Fp8DelayedScalingState Fp8DelayedScalingState::in_buffer(float* buffer, int64_t history_length) {
  detail::require_not_null("Fp8DelayedScalingState::in_buffer", "buffer", buffer);
  detail::require_positive("Fp8DelayedScalingState::in_buffer", "history_length", history_length);
  return {buffer + kScaleOffset, buffer + kScaleInvOffset, buffer + kHistoryOffset, history_length};
}

void reset_delayed_scaling(const Fp8DelayedScalingState& state, cudaStream_t stream) {
  require_state("reset_delayed_scaling", state);
  reset_kernel<<<1, kUpdateThreads, 0, stream>>>(state.scale, state.scale_inv, state.amax_history,
                                                 state.history_length);
  CUDA_CHECK_LAUNCH();
}

void cast_fp8_delayed(const __nv_bfloat16* input, int64_t rows, int64_t cols, ElementFormat format,
                      const Fp8DelayedScalingState& state, const Fp8CastTargets& targets,
                      cudaStream_t stream) {
  require_state("cast_fp8_delayed", state);
  cast_fp8(input, rows, cols, format, state.scale, targets, state.amax_history, stream);
}

void update_delayed_scaling(const Fp8DelayedScalingState& state, ElementFormat format,
                            cudaStream_t stream) {
  require_state("update_delayed_scaling", state);
  update_kernel<<<1, kUpdateThreads, 0, stream>>>(state.amax_history, state.history_length,
                                                  fp8_max_finite(format), state.scale,
                                                  state.scale_inv);
  CUDA_CHECK_LAUNCH();
}

void reset_delayed_scaling_states(float* states, int64_t count, int64_t history_length,
                                  cudaStream_t stream) {
  const int64_t stride = Fp8DelayedScalingState::buffer_floats(history_length);
  detail::require_not_null("reset_delayed_scaling_states", "states", states);
  detail::require_positive("reset_delayed_scaling_states", "count", count);
  reset_states_kernel<<<static_cast<unsigned int>(count), kUpdateThreads, 0, stream>>>(
      states, stride, history_length);
  CUDA_CHECK_LAUNCH();
}

void update_delayed_scaling_states(float* states, int64_t count, int64_t history_length,
                                   ElementFormat format, cudaStream_t stream) {
  const int64_t stride = Fp8DelayedScalingState::buffer_floats(history_length);
  detail::require_not_null("update_delayed_scaling_states", "states", states);
  detail::require_positive("update_delayed_scaling_states", "count", count);
  update_states_kernel<<<static_cast<unsigned int>(count), kUpdateThreads, 0, stream>>>(
      states, stride, history_length, fp8_max_finite(format));
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
