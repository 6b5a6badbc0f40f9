#pragma once
// The per-tensor amax NVFP4's encode scale needs, computed on the GPU before the quantize
// kernel (which cannot start its blocks before it knows the whole tensor's amax). Runs inside
// timed regions: a memset resets the two amaxes in the stream, then one kernel reads the input
// once and folds its maxima in with atomicMax. No host synchronisation.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/nvfp4_tensor_scalars.h"

namespace gemmscope {

// scalars->amax_rowwise = max |x| over the BF16 row-major [rows, cols] `input` (16-byte
// aligned; cols a multiple of 16). scalars->amax_columnwise = the same, or, with
// `columnwise_hadamard` (rows a multiple of 16), max |y| over the columnwise copy's values
// after the random Hadamard transform with `hadamard_sign_mask` (quant/hadamard.h). NaN
// anywhere makes the amax NaN. Throws std::invalid_argument for a bad shape or pointer.
void compute_nvfp4_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        bool columnwise_hadamard, uint16_t hadamard_sign_mask,
                        Nvfp4TensorScalars* scalars, cudaStream_t stream);

}  // namespace gemmscope
