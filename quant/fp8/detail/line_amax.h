#pragma once
// The first pass of FP8 rowwise scaling's two-pass path (quant/fp8/rowwise.h, and the grouped
// cast's in quant/fp8/grouped.h): the NaN-ignoring max |x| of every
// row and of every column of a BF16 [rows, cols] tensor, each as FP32 bits (non-negative FP32
// bit patterns order like their values, so the blocks of a line merge with an integer atomic
// max). The cast (quant/fp8/detail/tile_cast.h, TileScaling::kRowwise) reads them.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope::detail {

// Zeroes the `count` amax words a pass maxes into, with a kernel: a memset would do the same, but
// the pass launched right after a kernel can start before it ends (programmatic dependent launch,
// quant/detail/dependent_launch.cuh), loading its input while this one runs.
void launch_zero_line_amax(uint32_t* amax_bits, int64_t count, cudaStream_t stream);

// Enqueues the pass that fills the requested outputs, row_amax_bits[rows] and col_amax_bits[cols]
// (either may be null, not both), without the zeroing: the caller zeroes them with
// launch_zero_line_amax right before, as for the grouped pass (GroupedTileCast::
// launch_line_amax). The pass may start before that kernel ends (it loads its input first, so
// that kernel must not be the one that writes it), and the kRowwise cast after it before it ends;
// each waits for the one before where it first needs its results. Callers validate the
// arguments.
void launch_line_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                      uint32_t* row_amax_bits, uint32_t* col_amax_bits, cudaStream_t stream);

// Each of `groups` consecutive runs of `cols` column amaxes replaced by the run's max: a tensor's
// (or a group's) one amax, repeated per column, so that the tile cast's kRowwise gives its
// columnwise copy one tensorwise scale written per column (torchao's rowwise_with_gw_hp weight
// for grad_input). One block a group.
void launch_fold_column_amax(uint32_t* col_amax_bits, int64_t groups, int64_t cols,
                             cudaStream_t stream);

}  // namespace gemmscope::detail
