#pragma once
// FP8 tensorwise current scaling for a GEMM that reads outer-vector scales (cuBLASLt's
// OUTER_VEC_32F): one power-of-2 scale for the whole tensor, its scale_inv written once per row
// of each requested copy. torchao's "rowwise_with_gw_hp" recipe (FP8RowwiseBF16Wgrad) casts the
// weight this way for grad_input while grad_output is scaled per row, and torch._scaled_mm only
// multiplies scales of one granularity: torchao repeats the weight's scalar into the [1, N]
// vector the rowwise kernel reads (torchao/float8/float8_ops.py, preprocess_addmm).
//
// The scale is quant/fp8/detail/scale_policy.h's scale_from_amax(amax, 448, power_of_2): 448 /
// amax rounded down to a power of two, E4M3, as torchao's round_scales_to_power_of_2. Three
// steps: the tensor's amax (compute_amax, quant/fp8/tensorwise.h), one kernel that computes the
// scale and fills the scale_inv vectors, and the tensorwise cast (cast_fp8). Outputs are those
// of quantize_fp8_rowwise (quant/fp8/rowwise.h), so a GEMM plan cannot tell the two apart:
// rowwise copy [rows, cols] with scale_inv [rows], columnwise copy [cols, rows] with scale_inv
// [cols], every entry the same. All device work on `stream`, no host synchronisation. Input
// BF16 [rows, cols], any positive size; either copy may be skipped (null data and scale
// pointers), not both.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "quant/fp8/rowwise.h"

namespace gemmscope {

// Bytes of device memory quantize_fp8_tensorwise_outer_vec needs beside its outputs (the
// tensor's amax and scale); `workspace` must be that large and 16-byte aligned.
size_t fp8_tensorwise_outer_vec_workspace_bytes();

void quantize_fp8_tensorwise_outer_vec(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                       const Fp8RowwiseTargets& targets, void* workspace,
                                       cudaStream_t stream);

// Kernels and memsets one call enqueues, whatever the copies: the amax's memset and pass, the
// scale, the cast.
constexpr size_t kFp8TensorwiseOuterVecLaunches = 4;

// Times one call reads the input: the amax pass, then the cast.
constexpr int kFp8TensorwiseOuterVecInputReads = 2;

}  // namespace gemmscope
