#pragma once
// The first pass of FP8 rowwise scaling (quant/fp8/rowwise.h): the NaN-ignoring max |x| of every
// row and of every column of a BF16 [rows, cols] tensor, each as FP32 bits (non-negative FP32
// bit patterns order like their values, so the blocks of a line merge with an integer atomic
// max). The cast (quant/fp8/detail/tile_cast.h, TileScaling::kRowwise) reads them.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope::detail {

// Enqueues a zeroing of the requested outputs and the pass that fills them: row_amax_bits[rows],
// col_amax_bits[cols] (either may be null, not both). Callers validate the arguments.
void launch_line_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                      uint32_t* row_amax_bits, uint32_t* col_amax_bits, cudaStream_t stream);

}  // namespace gemmscope::detail
