#pragma once
// FP8 rowwise scaling (FP8Rowwise), as torchao's float8 training runs it on Hopper ("rowwise"):
// E4M3 for every operand, one power-of-2 FP32 scale per row along the contraction dimension.
// A copy's rows are what it is contracted along, so
//
//   rowwise copy     [rows, cols], one scale per row, over its cols      (X, dY per token; W per
//                                                                         output row)
//   columnwise copy  [cols, rows] (the transpose), one scale per original column, over the rows
//                                                                        (dY, X per feature; W
//                                                                         per input column)
//
// The scale is the block recipes' (scale_from_amax(amax, 448, power_of_2), quant/fp8/detail/
// scale_policy.h): 448 / amax rounded down to a power of two. torchao clamps amax at 1e-12 where
// this takes 1 for a line of zeros; both quantize such a line to zeros.
//
// The rowwise copy alone takes one pass where its rows fit in registers (rows of whole 16-byte
// chunks, at most 16384 BF16, from a 16-byte aligned input into an 8-byte aligned output;
// quant/fp8/detail/row_cast.h): each row's amax and its cast from one read of
// the input. Otherwise two passes: every row's and column's amax (quant/fp8/detail/line_amax.h),
// then one cast of the requested copies through the shared tile kernel (quant/fp8/detail/
// tile_cast.h). Scales out: FP32 scale_inv, [rows] for the rowwise copy and [cols] for the
// columnwise one, what cuBLASLt's OUTER_VEC_32F scale mode reads. All device work on `stream`,
// no host synchronisation. Input BF16 [rows, cols], any positive size; either copy may be
// skipped (null data and scale pointers), not both.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gemmscope {

struct Fp8RowwiseTargets {
  uint8_t* rowwise = nullptr;             // [rows, cols]
  float* rowwise_scale_inv = nullptr;     // [rows], required with rowwise
  uint8_t* columnwise = nullptr;          // [cols, rows]
  float* columnwise_scale_inv = nullptr;  // [cols], required with columnwise
};

// Bytes of device memory quantize_fp8_rowwise needs beside its outputs (each row's and column's
// amax); `workspace` must be that large and 16-byte aligned.
size_t fp8_rowwise_workspace_bytes(int64_t rows, int64_t cols);

// The arguments quantize_fp8_rowwise takes, and the casts that write its outputs
// (quant/fp8/tensorwise_outer_vec.h): throws std::invalid_argument naming `function` and the
// offending value.
void require_fp8_rowwise_arguments(const char* function, const __nv_bfloat16* input, int64_t rows,
                                   int64_t cols, const Fp8RowwiseTargets& targets,
                                   const void* workspace);

void quantize_fp8_rowwise(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          const Fp8RowwiseTargets& targets, void* workspace, cudaStream_t stream);

// How many times quantize_fp8_rowwise reads the input for the copies wanted: once (the rowwise
// copy alone, of rows that fit the one-pass cast) or twice, for a 16-byte aligned input and an
// 8-byte aligned rowwise output (as cudaMalloc gives them).
int fp8_rowwise_input_reads(int64_t cols, bool rowwise, bool columnwise);

// Kernels one call enqueues, on the same terms: the one-pass cast alone; otherwise
// one zeroing kernel of the amaxes, the amax pass and the cast (3, whichever copies).
size_t fp8_rowwise_launches(int64_t cols, bool rowwise, bool columnwise);

}  // namespace gemmscope
