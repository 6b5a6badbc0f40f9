#include "quant/fp8/tensorwise_outer_vec.h"

#include <algorithm>

#include "quant/base/cuda_check.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/scale_layout.h"
#include "quant/fp8/tensorwise.h"

namespace gemmscope {
namespace {

constexpr int kThreads = 256;

// Every thread derives the scale from the amax (one load, a few instructions) rather than
// waiting on a thread that stores it: one launch fills both vectors and the cast's scale.
__global__ void outer_vec_scale_kernel(const float* amax, float fmt_max, float* scale,
                                       float* rowwise_scale_inv, int64_t rows,
                                       float* columnwise_scale_inv, int64_t cols) {
  const float tensor_scale = scale_from_amax(*amax, fmt_max, /*power_of_2=*/true);
  const float scale_inv = scale_inverse(tensor_scale);
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i == 0)
    *scale = tensor_scale;
  if (rowwise_scale_inv != nullptr && i < rows)
    rowwise_scale_inv[i] = scale_inv;
  if (columnwise_scale_inv != nullptr && i < cols)
    columnwise_scale_inv[i] = scale_inv;
}

}  // namespace

size_t fp8_tensorwise_outer_vec_workspace_bytes() {
  return Fp8CurrentScalingState::kBufferFloats * sizeof(float);
}

void quantize_fp8_tensorwise_outer_vec(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                       const Fp8RowwiseTargets& targets, void* workspace,
                                       cudaStream_t stream) {
  require_fp8_rowwise_arguments("quantize_fp8_tensorwise_outer_vec", input, rows, cols, targets,
                                workspace);

  const Fp8CurrentScalingState state =
      Fp8CurrentScalingState::in_buffer(static_cast<float*>(workspace));
  compute_amax(input, rows * cols, state.amax, stream);
  float* rowwise_scale_inv = targets.rowwise != nullptr ? targets.rowwise_scale_inv : nullptr;
  float* columnwise_scale_inv =
      targets.columnwise != nullptr ? targets.columnwise_scale_inv : nullptr;
  // At least one vector is wanted, so at least one thread, which stores the cast's scale.
  const int64_t entries =
      std::max(rowwise_scale_inv != nullptr ? rows : 0, columnwise_scale_inv != nullptr ? cols : 0);
  outer_vec_scale_kernel<<<static_cast<unsigned int>(ceil_div(entries, kThreads)), kThreads, 0,
                           stream>>>(state.amax, kE4M3MaxFinite, state.scale, rowwise_scale_inv,
                                     rows, columnwise_scale_inv, cols);
  CUDA_CHECK_LAUNCH();
  cast_fp8(input, rows, cols, ElementFormat::kE4M3, state.scale,
           {targets.rowwise, targets.columnwise}, nullptr, stream);
}

}  // namespace gemmscope
