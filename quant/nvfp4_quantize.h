#pragma once
// NVFP4 quantization on the GPU: BF16 in; E2M1 data packed two per byte (the first element in
// the low nibble), one E4M3 scale per 16 elements (or per 16x16 block) in the swizzled layout
// cuBLASLt's VEC16_UE4M3 mode reads, and an FP32 per-tensor dequantization factor per copy
// that the GEMM folds into alpha. Options (quant/nvfp4_options.h): 16x16 weight blocks, the
// random Hadamard transform of the columnwise copy, stochastic rounding.
//
// Two kernels in stream order, both inside timed regions with no host synchronisation: the
// amax kernel (quant/nvfp4_amax.h, after a memset that resets it) and the quantize kernel,
// which reads the input a second time and writes the requested copies in one pass.
// Bit-exact with reference_quantize_nvfp4_tensor (quant/nvfp4_reference.h).

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/nvfp4_options.h"
#include "quant/nvfp4_tensor_scalars.h"
#include "quant/operand_copies.h"

namespace gemmscope {

// One copy's device buffers.
struct Nvfp4CopyBuffers {
  uint8_t* data = nullptr;   // E2M1 pairs, row-major [copy rows, copy cols / 2]; 8-byte aligned
  uint8_t* scale = nullptr;  // E4M3, swizzled for (copy rows, copy cols / 16), padding zero
};

// `input`: BF16 row-major [rows, cols], 16-byte aligned. The rowwise copy is [rows, cols], the
// columnwise copy [cols, rows] (the transpose); the buffers of a copy not in `copies` are
// ignored. `scalars` (device memory) receives both amaxes and both tensor scales. Throws
// std::invalid_argument for shapes or options NVFP4 cannot take (require_nvfp4_shape) and for
// missing or misaligned buffers.
void quantize_nvfp4(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Nvfp4Options& options, const Nvfp4CopyBuffers& rowwise,
                    const Nvfp4CopyBuffers& columnwise, Nvfp4TensorScalars* scalars,
                    cudaStream_t stream);

}  // namespace gemmscope
