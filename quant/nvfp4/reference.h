#pragma once
// The host reference of NVFP4 quantization and dequantization: what quantize_nvfp4 and the
// NVFP4 dequantize kernels must reproduce bit for bit. Slow and plain on purpose. The scaling
// arithmetic is quant/nvfp4/detail/scaling.h's; the roundings are the host codecs.
//
// Non-finite policy: a block holding ±inf or NaN gets the NaN scale (E4M3 0x7F) and all its
// element codes 0, so it dequantizes to NaN as a whole and a verification notices it. The
// tensor amax then is inf or NaN, which makes the encode scale 1 (quant/nvfp4/detail/scaling.h).

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "quant/host_quantized_copy.h"
#include "quant/nvfp4/options.h"
#include "quant/operand_copies.h"

namespace gemmscope {

struct Nvfp4Rounding {
  bool stochastic = false;
  uint64_t seed = 0;
  uint32_t stream = 0;  // kRowwiseRoundingStream or kColumnwiseRoundingStream
};

// NVFP4 copy of the row-major [rows, cols] `values`, blocks along cols. The amax and the
// tensor scale are those of `values`. With 16x16 blocks, a block at the bottom edge holds
// the rows that remain.
HostQuantizedCopy reference_quantize_nvfp4(const std::vector<float>& values, int64_t rows,
                                           int64_t cols, Nvfp4BlockShape block_shape,
                                           const Nvfp4Rounding& rounding);

// Each row's groups of 16 consecutive elements through random_hadamard_transform16.
std::vector<float> reference_hadamard_rows(const std::vector<float>& values, int64_t rows,
                                           int64_t cols, uint16_t sign_mask);

// The copies quantize_nvfp4 writes for the BF16 tensor `input` [rows, cols].
HostQuantizedTensor reference_quantize_nvfp4_tensor(const std::vector<__nv_bfloat16>& input,
                                                    int64_t rows, int64_t cols,
                                                    OperandCopies copies,
                                                    const Nvfp4Options& options);

// element * block scale, times the tensor scale when `apply_tensor_scale` (in that order, as
// the dequantize kernels compute it), row-major [copy.rows, copy.cols].
std::vector<float> reference_dequantize_nvfp4(const HostQuantizedCopy& copy,
                                              bool apply_tensor_scale);

}  // namespace gemmscope
