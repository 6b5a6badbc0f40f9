#include "quant/mxfp8_quantize.h"

#include <cuda_fp8.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "quant/block_scaled_shape.h"
#include "quant/cuda_check.h"
#include "quant/detail/bf16_tile.cuh"
#include "quant/detail/block_codecs.h"
#include "quant/detail/pointer_checks.h"
#include "quant/detail/swizzled_padding.cuh"
#include "quant/mxfp8_scaling.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

using detail::bf16_abs_max_bits;
using detail::bf16_bits_of;
using detail::bf16_bits_to_float;
using detail::bf16_magnitude_not_finite;
using detail::kTileCols;
using detail::kTileRows;
using detail::kTileThreads;
using detail::SwizzledPadding;
using detail::TilePosition;

constexpr uint32_t kNanCodes = 0x01010101u * kMxfp8NanElement;  // four at once
constexpr uint32_t kFullWarp = 0xFFFFFFFFu;

struct Mxfp8Params {
  const __nv_bfloat16* input;
  int64_t rows;
  int64_t cols;
  int64_t col_tiles;
  int64_t data_tiles;
  Mxfp8CopyBuffers rowwise;
  int64_t rowwise_padded_scale_cols;
  Mxfp8CopyBuffers columnwise;
  int64_t columnwise_padded_scale_cols;
  SwizzledPadding rowwise_padding;
  SwizzledPadding columnwise_padding;
};

// E4M3 codes of two values, the first in the low byte (round to nearest even, saturating).
__device__ inline uint32_t e4m3_pair(float first, float second) {
  return __nv_cvt_float2_to_fp8x2(make_float2(first, second), __NV_SATFINITE, __NV_E4M3);
}

// Four E4M3 codes in one word, in memory order.
__device__ inline uint32_t e4m3_quad(const float* values, float multiplier) {
  return e4m3_pair(values[0] * multiplier, values[1] * multiplier) |
         (e4m3_pair(values[2] * multiplier, values[3] * multiplier) << 16);
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
    scale = detail::e8m0_round_up(mxfp8_scale_target(bf16_bits_to_float(amax_bits)));
    const float multiplier = detail::e8m0_reciprocal(scale);
    float values[detail::kVectorElements];
#pragma unroll
    for (int k = 0; k < detail::kVectorElements; ++k) {
      values[k] = bf16_bits_to_float(bf16_bits_of(vector, k));
    }
    codes = make_uint2(e4m3_quad(values, multiplier), e4m3_quad(values + 4, multiplier));
  }
  const int64_t r = tile.row0 + row;
  const int64_t c = tile.col0 + col;
  *reinterpret_cast<uint2*>(p.rowwise.data + r * p.cols + c) = codes;
  if (col % kMxfp8BlockSize == 0) {
    p.rowwise.scale[swizzled_scale_offset(r, c / kMxfp8BlockSize, p.rowwise_padded_scale_cols)] =
        scale;
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

  float values[kMxfp8BlockSize];
  uint32_t amax_bits = 0;
#pragma unroll
  for (int k = 0; k < kMxfp8BlockSize; ++k) {
    const uint32_t bits = staged[first_row + k][col];
    amax_bits = max(amax_bits, bits & 0x7FFFu);
    values[k] = bf16_bits_to_float(bits);
  }
  uint8_t scale = kMxfp8NanScale;
  uint4 low = make_uint4(kNanCodes, kNanCodes, kNanCodes, kNanCodes);
  uint4 high = low;
  if (!bf16_magnitude_not_finite(amax_bits)) {
    scale = detail::e8m0_round_up(mxfp8_scale_target(bf16_bits_to_float(amax_bits)));
    const float m = detail::e8m0_reciprocal(scale);
    low = make_uint4(e4m3_quad(values, m), e4m3_quad(values + 4, m), e4m3_quad(values + 8, m),
                     e4m3_quad(values + 12, m));
    high = make_uint4(e4m3_quad(values + 16, m), e4m3_quad(values + 20, m),
                      e4m3_quad(values + 24, m), e4m3_quad(values + 28, m));
  }
  const int64_t out_row = tile.col0 + col;
  const int64_t out_col = tile.row0 + first_row;
  uint4* out = reinterpret_cast<uint4*>(p.columnwise.data + out_row * p.rows + out_col);
  out[0] = low;
  out[1] = high;
  p.columnwise.scale[swizzled_scale_offset(out_row, out_col / kMxfp8BlockSize,
                                           p.columnwise_padded_scale_cols)] = scale;
}

template <bool kRowwise, bool kColumnwise>
__global__ void __launch_bounds__(kTileThreads) mxfp8_quantize_kernel(const Mxfp8Params p) {
  __shared__ __align__(16) uint16_t staged[kColumnwise ? kTileRows : 1][kTileCols];
  const int64_t cta = blockIdx.x;
  if (cta >= p.data_tiles) {
    const int64_t worker = (cta - p.data_tiles) * kTileThreads + threadIdx.x;
    const int64_t workers = (gridDim.x - p.data_tiles) * kTileThreads;
    detail::write_swizzled_padding(p.rowwise_padding, worker, workers);
    detail::write_swizzled_padding(p.columnwise_padding, worker, workers);
    return;
  }
  const TilePosition tile = detail::tile_position(cta, p.col_tiles, p.rows, p.cols);
  const int col = detail::load_col();
  uint4 vectors[detail::kLoadsPerThread];
#pragma unroll
  for (int i = 0; i < detail::kLoadsPerThread; ++i) {
    const int row = detail::load_row(i);
    vectors[i] = make_uint4(0, 0, 0, 0);
    if (row < tile.valid_rows && col < tile.valid_cols) {
      vectors[i] = __ldg(
          reinterpret_cast<const uint4*>(p.input + (tile.row0 + row) * p.cols + tile.col0 + col));
    }
    if constexpr (kColumnwise)
      *reinterpret_cast<uint4*>(&staged[row][col]) = vectors[i];
  }
  if constexpr (kRowwise) {
#pragma unroll
    for (int i = 0; i < detail::kLoadsPerThread; ++i) {
      quantize_rowwise_vector(p, tile, detail::load_row(i), col, vectors[i]);
    }
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    quantize_columnwise_block(p, tile, staged);
  }
}

void require_copy_buffers(const Mxfp8CopyBuffers& buffers, const std::string& copy) {
  detail::require_device_pointer(buffers.data, 16, "MXFP8 quantize: " + copy + " data");
  detail::require_device_pointer(buffers.scale, 4, "MXFP8 quantize: " + copy + " scale");
}

}  // namespace

void quantize_mxfp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Mxfp8CopyBuffers& rowwise, const Mxfp8CopyBuffers& columnwise,
                    cudaStream_t stream) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, copies);
  detail::require_device_pointer(input, 16, "MXFP8 quantize: input");
  Mxfp8Params p{};
  p.input = input;
  p.rows = rows;
  p.cols = cols;
  p.col_tiles = (cols + kTileCols - 1) / kTileCols;
  p.data_tiles = (rows + kTileRows - 1) / kTileRows * p.col_tiles;
  if (has_rowwise(copies)) {
    require_copy_buffers(rowwise, "rowwise");
    p.rowwise = rowwise;
    p.rowwise_padding = detail::swizzled_padding(rowwise.scale, rows, cols / kMxfp8BlockSize);
    p.rowwise_padded_scale_cols = p.rowwise_padding.padded_scale_cols;
  }
  if (has_columnwise(copies)) {
    require_copy_buffers(columnwise, "columnwise");
    p.columnwise = columnwise;
    p.columnwise_padding = detail::swizzled_padding(columnwise.scale, cols, rows / kMxfp8BlockSize);
    p.columnwise_padded_scale_cols = p.columnwise_padding.padded_scale_cols;
  }
  const int64_t grid =
      p.data_tiles + detail::padding_ctas(p.rowwise_padding, p.columnwise_padding, kTileThreads);
  if (grid > INT_MAX) {
    throw std::invalid_argument("MXFP8 quantize: a " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " tensor needs more CTAs than a grid holds");
  }
  const dim3 blocks(static_cast<unsigned>(grid));
  switch (copies) {
    case OperandCopies::kRowwise:
      mxfp8_quantize_kernel<true, false><<<blocks, kTileThreads, 0, stream>>>(p);
      break;
    case OperandCopies::kColumnwise:
      mxfp8_quantize_kernel<false, true><<<blocks, kTileThreads, 0, stream>>>(p);
      break;
    case OperandCopies::kBoth:
      mxfp8_quantize_kernel<true, true><<<blocks, kTileThreads, 0, stream>>>(p);
      break;
  }
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
