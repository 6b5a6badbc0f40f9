#pragma once
// The one-pass FP8 cast kernel behind every FP8 quantizer (tensorwise, 1x128, 128x128, and
// rowwise but for one tensor's rowwise copy alone, quant/fp8/detail/row_cast.h):
// each thread block stages a 128x128 BF16 tile in shared memory with 16-byte loads, then writes
// the rowwise copy and the transposed columnwise copy with 16-byte stores. Only the choice of
// scale differs between recipes. Callers (quant/fp8/tensorwise.cu, quant/fp8/delayed.cu,
// quant/fp8/block.cpp, quant/fp8/rowwise.cpp, quant/fp8/grouped.cpp) validate their arguments;
// these launchers only launch.
//
// A grouped cast runs the same tiles for several tensors in one launch (the groups of a grouped
// operand), each tensor with its own arguments, so each is cast exactly as launch_tile_cast
// casts it alone.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/detail/device_tables.h"
#include "quant/quantized_tensor.h"

namespace gemmscope::detail {

enum class TileScaling {
  kTensorwise,    // one scale read from device memory
  kVec128,        // a power-of-2 scale per 1x128 (rowwise) and per 128x1 (columnwise) block
  kBlock128x128,  // a power-of-2 scale per 128x128 block, shared by both copies
  kRowwise,       // a power-of-2 scale per whole row (rowwise copy) and per whole column
                  // (columnwise copy), from the amaxes quant/fp8/detail/line_amax.h wrote
};

struct TileCastArgs {
  const __nv_bfloat16* input = nullptr;  // [rows, cols], row-major
  int64_t rows = 0;
  int64_t cols = 0;
  ElementFormat format = ElementFormat::kE4M3;  // block scalings: E4M3 only
  TileScaling scaling = TileScaling::kTensorwise;
  uint8_t* rowwise = nullptr;     // [rows, cols], or null
  uint8_t* columnwise = nullptr;  // [cols, rows], or null
  // kTensorwise: the quantization factor, and optionally where to atomically max this tensor's
  // amax (delayed scaling records it during the cast).
  const float* scale = nullptr;
  float* amax_record = nullptr;
  // Block scalings: scale_inv of each requested copy, in its cuBLASLt layout.
  float* rowwise_scale_inv = nullptr;
  float* columnwise_scale_inv = nullptr;
  // kVec128 only, optional: the rowwise scale_inv again, row r of block column b at
  // stacked_rowwise_scale_inv[b * stacked_scale_stride + r] (QuantizedTensor::stacked_scale);
  // no padding slots.
  float* stacked_rowwise_scale_inv = nullptr;
  int64_t stacked_scale_stride = 0;
  // kRowwise: each row's and each column's amax as FP32 bits (line_amax.h), for the copies
  // requested; its scale_inv outputs are then [rows] and [cols]. launch_line_amax() (one tensor)
  // or GroupedTileCast::launch_line_amax() writes them.
  uint32_t* row_amax_bits = nullptr;
  uint32_t* col_amax_bits = nullptr;
};

// kRowwise's cast (one tensor's or a grouped one) is a dependent launch
// (quant/detail/dependent_launch.cuh) that loads its input before it waits for the kernel before
// it: launch it after the line amax pass (or a kernel after that pass), never right after the
// kernel that writes its input.
void launch_tile_cast(const TileCastArgs& args, cudaStream_t stream);

// The tensors of a grouped cast: each one's arguments and, for each 128-row tile row of them
// all, which tensor it belongs to. The kernels read these tables from device memory: built here
// once, uploaded once into device memory the caller owns, read by every launch after.
class GroupedTileCast {
 public:
  // Every tensor has rows and shares cols, format and scaling with the others; each takes the
  // vector or the scalar path as it would alone. `amaxes` is empty, or where launch_amax() writes
  // each tensor's amax.
  GroupedTileCast(const std::vector<TileCastArgs>& tensors, const std::vector<float*>& amaxes);

  // Bytes of device memory the tables take, and their copy into it (`workspace`, 16-byte
  // aligned), enqueued on `stream` before the first launch.
  size_t workspace_bytes() const { return tables_.bytes(); }
  void upload(void* workspace, cudaStream_t stream);

  // launch_tile_cast of every tensor, in one launch (none without tensors).
  void launch_cast(cudaStream_t stream) const;
  // compute_amax of every tensor into its `amaxes` entry, in one launch (none without tensors)
  // and without the memset: the caller zeroes them first.
  void launch_amax(cudaStream_t stream) const;
  // kRowwise: every tensor's row and column amaxes (line_amax.h) into its row_amax_bits and
  // col_amax_bits, in one launch (none without tensors) and without the zeroing: the caller
  // zeroes them with launch_zero_line_amax right before (the pass is a dependent launch, as
  // launch_line_amax's is).
  void launch_line_amax(cudaStream_t stream) const;

 private:
  DeviceTables tables_;
  size_t tensors_table_ = 0;
  size_t tile_rows_table_ = 0;
  TileScaling scaling_ = TileScaling::kTensorwise;
  ElementFormat format_ = ElementFormat::kE4M3;
  bool aligned_ = true;            // every tensor takes the vector path
  bool line_rows_wanted_ = false;  // kRowwise: some tensor wants its row amaxes
  unsigned int col_tiles_ = 0;
  unsigned int tile_rows_ = 0;
  unsigned int blocks_ = 0;
};

}  // namespace gemmscope::detail
