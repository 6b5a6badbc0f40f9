#pragma once
// The MXFP8 quantize kernel: BF16 in, E4M3 data with one E8M0 scale per 32 elements along the
// contraction dimension out, in the layout cuBLASLt's VEC32_UE8M0 mode reads. One pass reads the
// input once and writes the rowwise copy, the columnwise copy, or both. It runs inside timed
// regions: asynchronous on `stream`, no host synchronisation, no host reads of device data.
// Bit-exact with reference_quantize_mxfp8_tensor (quant/mxfp8/reference.h), which states the
// rounding and the non-finite policy.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/detail/grouped_tiles.h"
#include "quant/mxfp8/operand.h"
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

// quantize_mxfp8 for every group of a grouped operand (quant/grouped_operand_layout.h) in one
// launch, whatever the number of groups: group g's copies are, byte for byte, what
// quantize_mxfp8 writes for its rows alone, at the layout's offsets in the whole buffers.
class Mxfp8GroupedQuantize {
 public:
  // `input`: the BF16 row-major [layout.rows(), layout.cols()] grouped input, 16-byte aligned;
  // `rowwise`, `columnwise`: the whole buffers of the layout's copies. Throws
  // std::invalid_argument as quantize_mxfp8 does for any group.
  Mxfp8GroupedQuantize(const __nv_bfloat16* input, const Mxfp8GroupedLayout& layout,
                       const Mxfp8CopyBuffers& rowwise, const Mxfp8CopyBuffers& columnwise);

  // The groups' kernel parameters go to device memory the caller owns, once
  // (detail/device_tables.h): `workspace` holds workspace_bytes(), 16-byte aligned, and lives as
  // long as quantize() is called.
  size_t workspace_bytes() const { return tables_.tables.bytes(); }
  void upload(void* workspace, cudaStream_t stream);
  // Enqueues the one kernel (none when no group has rows). Throws std::logic_error before
  // upload().
  void quantize(cudaStream_t stream) const;
  size_t launches() const;

 private:
  OperandCopies copies_;
  int64_t rows_;
  int64_t cols_;
  detail::GroupedTileTables tables_;
};

}  // namespace gemmscope
