#pragma once
// NVFP4 quantization on the GPU: BF16 in; E2M1 data packed two per byte (the first element in
// the low nibble), one E4M3 scale per 16 elements (or per 16x16 block) in the swizzled layout
// cuBLASLt's VEC16_UE4M3 mode reads, and an FP32 per-tensor dequantization factor per copy
// that the GEMM folds into alpha. Options (quant/nvfp4/options.h): 16x16 weight blocks, the
// random Hadamard transform of the columnwise copy, stochastic rounding.
//
// Two kernels in stream order, both inside timed regions with no host synchronisation: the
// amax kernel (quant/nvfp4/detail/amax.h, after a memset that resets it) and the quantize kernel,
// which reads the input a second time and writes the requested copies in one pass.
// Bit-exact with reference_quantize_nvfp4_tensor (quant/nvfp4/reference.h).

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/detail/grouped_tiles.h"
#include "quant/nvfp4/detail/amax.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/options.h"
#include "quant/nvfp4/tensor_scalars.h"
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

// quantize_nvfp4 for every group of a grouped operand (quant/grouped_operand_layout.h), each
// group with its own amaxes and tensor scalars, in launches whose count does not grow with the
// groups: the grouped amax (Nvfp4GroupedAmax: a memset and a kernel), then one quantize kernel.
// Group g's copies and scalars[g] are, byte for byte, what quantize_nvfp4 writes for its rows
// alone, its random rounding included (an element's random bits depend on the seed, the copy
// and its index in the group's copy: quant/nvfp4/detail/stochastic_rounding.h), at the layout's
// offsets in the whole buffers.
class Nvfp4GroupedQuantize {
 public:
  // `input`: the BF16 row-major [layout.rows(), layout.cols()] grouped input, 16-byte aligned;
  // `options`: those the layout's groups were made with; `rowwise`, `columnwise`: the whole
  // buffers of the layout's copies; `scalars`: one per group (a group without rows keeps
  // zeros). Throws std::invalid_argument as quantize_nvfp4 does for any group.
  Nvfp4GroupedQuantize(const __nv_bfloat16* input, const Nvfp4GroupedLayout& layout,
                       const Nvfp4Options& options, const Nvfp4CopyBuffers& rowwise,
                       const Nvfp4CopyBuffers& columnwise, Nvfp4TensorScalars* scalars);

  // The groups' parameters (the amax's and the quantize kernel's) go to device memory, once,
  // as Mxfp8GroupedQuantize's do.
  size_t workspace_bytes() const;
  void upload(void* workspace, cudaStream_t stream);
  // Enqueues the amax's memset and kernel, then the quantize kernel (nothing when no group has
  // rows). Throws std::logic_error before upload().
  void quantize(cudaStream_t stream) const;
  size_t launches() const;

 private:
  size_t amax_workspace_bytes() const;

  OperandCopies copies_;
  Nvfp4Options options_;
  Nvfp4GroupedAmax amax_;
  detail::GroupedTileTables tables_;
};

}  // namespace gemmscope
