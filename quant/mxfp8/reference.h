#pragma once
// The host reference of MXFP8 quantization and dequantization: what quantize_mxfp8 and the
// MXFP8 dequantize kernels must reproduce bit for bit. Slow and plain on purpose.
//
// Non-finite policy: a block holding ±inf or NaN gets the NaN scale (E8M0 0xFF) and all its
// elements the E4M3 NaN 0x7F, so it dequantizes to NaN as a whole and a verification notices
// it. (TransformerEngine instead saturates an inf block's scale; only this edge differs.)

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "quant/host_quantized_copy.h"
#include "quant/operand_copies.h"

namespace gemmscope {

// MXFP8 copy of the row-major [rows, cols] `values`, blocks of 32 along cols (cols must be a
// multiple of 32).
HostQuantizedCopy reference_quantize_mxfp8(const std::vector<float>& values, int64_t rows,
                                           int64_t cols);

// The copies quantize_mxfp8 writes for the BF16 tensor `input` [rows, cols].
HostQuantizedTensor reference_quantize_mxfp8_tensor(const std::vector<__nv_bfloat16>& input,
                                                    int64_t rows, int64_t cols,
                                                    OperandCopies copies);

// element * 2^(scale - 127), row-major [copy.rows, copy.cols]; exact in FP32.
std::vector<float> reference_dequantize_mxfp8(const HostQuantizedCopy& copy);

}  // namespace gemmscope
