#include "quant/mxfp8_quantize.h"

#include <cuda_fp8.h>

#include <string>

#include "quant/block_scaled_shape.h"
#include "quant/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/fp8_device.cuh"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/mxfp8_scaling.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

using detail::bf16_abs_max_bits;
using detail::bf16_bits_to_float;
using detail::bf16_magnitude_not_finite;
using detail::kTileCols;
using detail::kTileRows;
using detail::kTileThreads;
using detail::TileGrid;
using detail::TilePosition;

constexpr uint32_t kNanCodes = 0x01010101u * kMxfp8NanElement;  // four at once
constexpr uint32_t kFullWarp = 0xFFFFFFFFu;

struct Mxfp8Params {
  TileGrid grid;
  Mxfp8CopyBuffers rowwise;
  Mxfp8CopyBuffers columnwise;
};

// Four E4M3 codes, in element order, from two words of BF16 pairs times the block's factor.
__device__ inline uint32_t e4m3_quad(uint32_t first_pair, uint32_t second_pair, float factor) {
  return detail::quantize_bf16_quad<__NV_E4M3>(first_pair, second_pair, factor);
}

// The block's E8M0 scale from its amax (BF16 magnitude bits).
__device__ inline uint8_t block_scale(uint32_t amax_bits) {
  return detail::e8m0_round_up(mxfp8_scale_target(bf16_bits_to_float(amax_bits)));
}

// One thread's 8 elements of a rowwise block; the block's other 24 are in the three
// neighbouring lanes. Every lane must call this (it shuffles).
__device__ inline void quantize_rowwise_vector(const Mxfp8Params& p, const TilePosition& tile,
                                               int row, int col, const uint4& vector) {
  uint32_t amax_bits = bf16_abs_max_bits(vector);
  amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 1));
  amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 2));
  if (row >= tile.valid_rows || col >= tile.valid_cols)
    return;

  uint8_t scale = kMxfp8NanScale;
  uint2 codes = make_uint2(kNanCodes, kNanCodes);
  if (!bf16_magnitude_not_finite(amax_bits)) {
    scale = block_scale(amax_bits);
    const float factor = detail::e8m0_reciprocal(scale);
    codes =
        make_uint2(e4m3_quad(vector.x, vector.y, factor), e4m3_quad(vector.z, vector.w, factor));
  }
  const int64_t r = tile.row0 + row;
  const int64_t c = tile.col0 + col;
  *reinterpret_cast<uint2*>(p.rowwise.data + r * p.grid.cols + c) = codes;
  if (col % kMxfp8BlockSize == 0) {
    p.rowwise.scale[swizzled_scale_offset(r, c / kMxfp8BlockSize,
                                          p.grid.rowwise_padding.padded_scale_cols)] = scale;
  }
}

// One columnwise block: 32 consecutive rows of one column of the staged tile, which become 32
// consecutive bytes of one row of the transposed copy. Thread t takes column t % 64 and the
// block of rows 32 * (t / 64): a warp reads 32 neighbouring columns of one row of shared
// memory at a time, without bank conflicts.
__device__ inline void quantize_columnwise_block(const Mxfp8Params& p, const TilePosition& tile,
                                                 const uint16_t (*staged)[kTileCols]) {
  const int col = static_cast<int>(threadIdx.x) % kTileCols;
  const int first_row = static_cast<int>(threadIdx.x) / kTileCols * kMxfp8BlockSize;
  if (col >= tile.valid_cols || first_row >= tile.valid_rows)
    return;

  // The column's 32 BF16 values, two per word in element order.
  uint32_t pairs[kMxfp8BlockSize / 2];
  uint32_t amax_bits = 0;
#pragma unroll
  for (int k = 0; k < kMxfp8BlockSize / 2; ++k) {
    const uint32_t low = staged[first_row + 2 * k][col];
    const uint32_t high = staged[first_row + 2 * k + 1][col];
    amax_bits = max(amax_bits, max(low & 0x7FFFu, high & 0x7FFFu));
    pairs[k] = low | (high << 16);
  }
  uint8_t scale = kMxfp8NanScale;
  uint32_t codes[kMxfp8BlockSize / 4];
#pragma unroll
  for (int k = 0; k < kMxfp8BlockSize / 4; ++k)
    codes[k] = kNanCodes;
  if (!bf16_magnitude_not_finite(amax_bits)) {
    scale = block_scale(amax_bits);
    const float factor = detail::e8m0_reciprocal(scale);
#pragma unroll
    for (int k = 0; k < kMxfp8BlockSize / 4; ++k) {
      codes[k] = e4m3_quad(pairs[2 * k], pairs[2 * k + 1], factor);
    }
  }
  const int64_t out_row = tile.col0 + col;
  const int64_t out_col = tile.row0 + first_row;
  uint4* out = reinterpret_cast<uint4*>(p.columnwise.data + out_row * p.grid.rows + out_col);
  out[0] = make_uint4(codes[0], codes[1], codes[2], codes[3]);
  out[1] = make_uint4(codes[4], codes[5], codes[6], codes[7]);
  p.columnwise.scale[swizzled_scale_offset(out_row, out_col / kMxfp8BlockSize,
                                           p.grid.columnwise_padding.padded_scale_cols)] = scale;
}

template <bool kRowwise, bool kColumnwise>
__global__ void __launch_bounds__(kTileThreads) mxfp8_quantize_kernel(const Mxfp8Params p) {
  __shared__ __align__(16) uint16_t staged[kColumnwise ? kTileRows : 1][kTileCols];
  if (detail::handled_as_padding_cta(p.grid))
    return;
  const TilePosition tile = detail::tile_position(p.grid);
  uint4 vectors[detail::kLoadsPerThread];
  detail::load_tile<kColumnwise>(p.grid, tile, vectors, staged);
  if constexpr (kRowwise) {
#pragma unroll
    for (int i = 0; i < detail::kLoadsPerThread; ++i) {
      quantize_rowwise_vector(p, tile, detail::load_row(i), detail::load_col(), vectors[i]);
    }
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    quantize_columnwise_block(p, tile, staged);
  }
}

}  // namespace

void quantize_mxfp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Mxfp8CopyBuffers& rowwise, const Mxfp8CopyBuffers& columnwise,
                    cudaStream_t stream) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, copies);
  detail::require_device_pointer(input, 16, "MXFP8 quantize: input");
  Mxfp8Params p{};
  detail::take_copy_buffers(copies, rowwise, columnwise, 16, "MXFP8 quantize", p.rowwise,
                            p.columnwise);
  p.grid = detail::make_tile_grid(input, rows, cols, kMxfp8BlockSize, copies, p.rowwise.scale,
                                  p.columnwise.scale, "MXFP8 quantize");
  detail::with_copies(copies, [&](auto rowwise_copy, auto columnwise_copy) {
    mxfp8_quantize_kernel<decltype(rowwise_copy)::value, decltype(columnwise_copy)::value>
        <<<p.grid.ctas, kTileThreads, 0, stream>>>(p);
  });
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
