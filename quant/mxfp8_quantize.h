#pragma once
// The MXFP8 quantize kernel: BF16 in, E4M3 data with one E8M0 scale per 32 elements along the
// contraction dimension out, in the layout cuBLASLt's VEC32_UE8M0 mode reads. One pass reads the
// input once and writes the rowwise copy, the columnwise copy, or both. It runs inside timed
// regions: asynchronous on `stream`, no host synchronisation, no host reads of device data.
// Bit-exact with reference_quantize_mxfp8_tensor (quant/mxfp8_reference.h), which states the
// rounding and the non-finite policy.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/operand_copies.h"

namespace gemmscope {

// One copy's device buffers; both 16-byte aligned.
struct Mxfp8CopyBuffers {
  uint8_t* data = nullptr;   // E4M3, row-major [copy rows, copy cols]
  uint8_t* scale = nullptr;  // E8M0, swizzled for (copy rows, copy cols / 32), padding zero
};

// `input`: BF16 row-major [rows, cols], 16-byte aligned. The rowwise copy is [rows, cols], the
// columnwise copy [cols, rows] (the transpose); the buffers of a copy not in `copies` are
// ignored. Throws std::invalid_argument for shapes MXFP8 cannot take
// (quant/block_scaled_shape.h) and for missing or misaligned buffers.
void quantize_mxfp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Mxfp8CopyBuffers& rowwise, const Mxfp8CopyBuffers& columnwise,
                    cudaStream_t stream);

}  // namespace gemmscope
