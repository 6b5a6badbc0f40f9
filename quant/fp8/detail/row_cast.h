#pragma once
// FP8Rowwise's rowwise copy alone in one pass over the input (quant/fp8/rowwise.h): one to eight
// warps hold a whole row in registers, take its amax, and cast it from those registers, so the
// input is read once where the general path (an amax pass, then the tile cast) reads it twice.
// A trainer's X and dY of the forward pass and W's Fprop copy are cast so.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope::detail {

// Whether launch_row_cast takes rows of `cols` BF16: whole 16-byte chunks (cols % 8 == 0), at
// most 16384 BF16 a row (eight warps of 32 threads holding eight chunks each).
bool row_cast_fits(int64_t cols);

// output [rows, cols] E4M3 with scale_inv [rows]: each row's power-of-2 scale from its
// NaN-ignoring amax, as the tile cast's kRowwise computes it. Callers validate the arguments,
// check row_cast_fits(cols) and pass a 16-byte aligned input and an 8-byte aligned output.
void launch_row_cast(const __nv_bfloat16* input, int64_t rows, int64_t cols, uint8_t* output,
                     float* scale_inv, cudaStream_t stream);

}  // namespace gemmscope::detail
