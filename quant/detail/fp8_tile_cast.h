#pragma once
// The one-pass FP8 cast kernel behind every FP8 quantizer (tensorwise, 1x128, 128x128): each
// thread block stages a 128x128 BF16 tile in shared memory with 16-byte loads, then writes the
// rowwise copy and the transposed columnwise copy with 16-byte stores. Only the choice of
// scale differs between recipes. Callers (fp8_tensorwise.cu, fp8_delayed.cu, fp8_block.cu)
// validate their arguments; this launcher only launches.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope::detail {

enum class TileScaling {
  kTensorwise,    // one scale read from device memory
  kVec128,        // a power-of-2 scale per 1x128 (rowwise) and per 128x1 (columnwise) block
  kBlock128x128,  // a power-of-2 scale per 128x128 block, shared by both copies
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
};

void launch_tile_cast(const TileCastArgs& args, cudaStream_t stream);

}  // namespace gemmscope::detail
