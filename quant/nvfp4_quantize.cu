#include "quant/nvfp4_quantize.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cfloat>
#include <string>

#include "quant/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/hadamard.h"
#include "quant/nvfp4_amax.h"
#include "quant/nvfp4_scaling.h"
#include "quant/stochastic_rounding.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

using detail::bf16_abs_max_bits;
using detail::bf16_bits_of;
using detail::bf16_bits_to_float;
using detail::kLoadsPerThread;
using detail::kTileCols;
using detail::kTileRows;
using detail::kTileThreads;
using detail::kVectorElements;
using detail::TileGrid;
using detail::TilePosition;

constexpr uint32_t kFullWarp = 0xFFFFFFFFu;
constexpr int kWarps = kTileThreads / 32;
constexpr int kBlockRowsPerTile = kTileRows / kNvfp4BlockSize;  // 8
constexpr int kBlockColsPerTile = kTileCols / kNvfp4BlockSize;  // 4

struct Nvfp4Params {
  TileGrid grid;
  Nvfp4CopyBuffers rowwise;
  Nvfp4CopyBuffers columnwise;
  Nvfp4TensorScalars* scalars;
  bool blocks_16x16;
  bool columnwise_hadamard;
  uint16_t hadamard_sign_mask;
  bool stochastic_rounding;
  uint64_t rounding_seed;
};

// A block's stored scale and what its elements are multiplied by before E2M1 rounding.
struct BlockScale {
  uint8_t code;
  float multiplier;
  bool poisoned;  // the block holds inf or NaN: NaN scale, element codes 0
};

__device__ inline BlockScale block_scale(float block_amax, float encode_scale) {
  BlockScale scale{kNvfp4NanScale, 0.0f, !(block_amax <= FLT_MAX)};
  if (scale.poisoned)
    return scale;
  scale.code = __nv_cvt_float_to_fp8(nvfp4_block_scale_unrounded(block_amax, encode_scale),
                                     __NV_SATFINITE, __NV_E4M3);
  const float stored = __half2float(__half(__nv_cvt_fp8_to_halfraw(scale.code, __NV_E4M3)));
  scale.multiplier = nvfp4_element_multiplier(stored, encode_scale);
  return scale;
}

// E2M1 codes of 8 consecutive elements of a copy, the first at row-major position `index` (a
// multiple of 8, so their random bits come from one Philox block), packed in memory order.
__device__ inline uint32_t e2m1_word(const float* values, float multiplier, const Nvfp4Params& p,
                                     uint32_t rounding_stream, uint64_t index) {
  uint32_t word = 0;
  if (p.stochastic_rounding) {
    const Philox4x32Block random = rounding_block(p.rounding_seed, rounding_stream, index);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const uint16_t bits = rounding_bits_at(random, k);
      word |= static_cast<uint32_t>(detail::e2m1_round_stochastic(values[k] * multiplier, bits))
              << (4 * k);
    }
  } else {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      word |= static_cast<uint32_t>(detail::e2m1_round_nearest(values[k] * multiplier)) << (4 * k);
    }
  }
  return word;
}

// For 16x16 blocks: each block's amax (BF16 magnitude bits) over the tile, in shared memory.
// The 16 rows of block row g are held by loads i = g / 2 of warps 4 * (g % 2) .. +3, 4 rows per
// warp; three shuffles reduce a warp's 4 rows x 16 columns, shared memory the four warps.
__device__ inline void tile_block_amaxes(const uint4 (&vectors)[kLoadsPerThread],
                                         uint32_t (*amax)[kBlockColsPerTile]) {
  __shared__ uint32_t warp_partial[kLoadsPerThread][kWarps][kBlockColsPerTile];
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i) {
    uint32_t m = bf16_abs_max_bits(vectors[i]);
    m = max(m, __shfl_xor_sync(kFullWarp, m, 1));  // the other 8 columns of the block
    m = max(m, __shfl_xor_sync(kFullWarp, m, 8));  // the warp's other rows
    m = max(m, __shfl_xor_sync(kFullWarp, m, 16));
    if (lane < 8 && lane % 2 == 0)
      warp_partial[i][warp][lane / 2] = m;
  }
  __syncthreads();
  if (threadIdx.x < kBlockRowsPerTile * kBlockColsPerTile) {
    const int block_row = static_cast<int>(threadIdx.x) / kBlockColsPerTile;
    const int block_col = static_cast<int>(threadIdx.x) % kBlockColsPerTile;
    const int first_warp = block_row % 2 * 4;
    uint32_t m = 0;
    for (int w = first_warp; w < first_warp + 4; ++w) {
      m = max(m, warp_partial[block_row / 2][w][block_col]);
    }
    amax[block_row][block_col] = m;
  }
  __syncthreads();
}

// One thread's 8 elements of the rowwise copy. With 1x16 blocks the block's other 8 are in the
// neighbouring lane; every lane must call this (it shuffles).
__device__ inline void quantize_rowwise_vector(const Nvfp4Params& p, const TilePosition& tile,
                                               int row, int col, const uint4& vector,
                                               float encode_scale,
                                               const uint32_t (*block_amax)[kBlockColsPerTile]) {
  uint32_t amax_bits = 0;
  if (p.blocks_16x16) {
    amax_bits = block_amax[row / kNvfp4BlockSize][col / kNvfp4BlockSize];
  } else {
    amax_bits = bf16_abs_max_bits(vector);
    amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 1));
  }
  if (row >= tile.valid_rows || col >= tile.valid_cols)
    return;

  const BlockScale scale = block_scale(bf16_bits_to_float(amax_bits), encode_scale);
  const int64_t r = tile.row0 + row;
  const int64_t c = tile.col0 + col;
  const int64_t index = r * p.grid.cols + c;
  uint32_t word = 0;
  if (!scale.poisoned) {
    float values[kVectorElements];
#pragma unroll
    for (int k = 0; k < kVectorElements; ++k)
      values[k] = bf16_bits_to_float(bf16_bits_of(vector, k));
    word = e2m1_word(values, scale.multiplier, p, kRowwiseRoundingStream,
                     static_cast<uint64_t>(index));
  }
  *reinterpret_cast<uint32_t*>(p.rowwise.data + index / 2) = word;
  if (col % kNvfp4BlockSize == 0) {
    p.rowwise.scale[swizzled_scale_offset(r, c / kNvfp4BlockSize,
                                          p.grid.rowwise_padding.padded_scale_cols)] = scale.code;
  }
}

// One columnwise block: 16 consecutive rows of one column of the staged tile (Hadamard-
// transformed when asked), which become 8 bytes of one row of the transposed copy. Neighbouring
// lanes take neighbouring columns, so shared-memory reads do not conflict.
__device__ inline void quantize_columnwise_block(const Nvfp4Params& p, const TilePosition& tile,
                                                 const uint16_t (*staged)[kTileCols], int col,
                                                 int block_row, float encode_scale,
                                                 const uint32_t (*block_amax)[kBlockColsPerTile]) {
  const int first_row = block_row * kNvfp4BlockSize;
  if (col >= tile.valid_cols || first_row >= tile.valid_rows)
    return;

  float values[kNvfp4BlockSize];
#pragma unroll
  for (int k = 0; k < kNvfp4BlockSize; ++k)
    values[k] = bf16_bits_to_float(staged[first_row + k][col]);
  if (p.columnwise_hadamard)
    random_hadamard_transform16(values, p.hadamard_sign_mask);
  float amax = 0.0f;
  if (p.blocks_16x16) {
    amax = bf16_bits_to_float(block_amax[block_row][col / kNvfp4BlockSize]);
  } else {
    uint32_t amax_bits = 0;
#pragma unroll
    for (int k = 0; k < kNvfp4BlockSize; ++k) {
      amax_bits = max(amax_bits, fp32_bits(values[k]) & 0x7FFFFFFFu);
    }
    amax = fp32_from_bits(amax_bits);
  }

  const BlockScale scale = block_scale(amax, encode_scale);
  const int64_t out_row = tile.col0 + col;
  const int64_t out_col = tile.row0 + first_row;
  const int64_t index = out_row * p.grid.rows + out_col;
  uint2 words = make_uint2(0, 0);
  if (!scale.poisoned) {
    words.x = e2m1_word(values, scale.multiplier, p, kColumnwiseRoundingStream,
                        static_cast<uint64_t>(index));
    words.y = e2m1_word(values + 8, scale.multiplier, p, kColumnwiseRoundingStream,
                        static_cast<uint64_t>(index + 8));
  }
  *reinterpret_cast<uint2*>(p.columnwise.data + index / 2) = words;
  p.columnwise.scale[swizzled_scale_offset(out_row, out_col / kNvfp4BlockSize,
                                           p.grid.columnwise_padding.padded_scale_cols)] =
      scale.code;
}

template <bool kRowwise, bool kColumnwise>
__global__ void __launch_bounds__(kTileThreads) nvfp4_quantize_kernel(const Nvfp4Params p) {
  __shared__ __align__(16) uint16_t staged[kColumnwise ? kTileRows : 1][kTileCols];
  __shared__ uint32_t block_amax[kBlockRowsPerTile][kBlockColsPerTile];
  if (detail::handled_as_padding_cta(p.grid))
    return;
  // The amax kernel ran before this one in the stream.
  const float rowwise_encode = nvfp4_encode_scale(p.scalars->amax_rowwise);
  const float columnwise_encode = nvfp4_encode_scale(p.scalars->amax_columnwise);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    p.scalars->tensor_scale_rowwise = nvfp4_tensor_dequant_scale(rowwise_encode);
    p.scalars->tensor_scale_columnwise = nvfp4_tensor_dequant_scale(columnwise_encode);
  }

  const TilePosition tile = detail::tile_position(p.grid);
  uint4 vectors[kLoadsPerThread];
  detail::load_tile<kColumnwise>(p.grid, tile, vectors, staged);
  if (p.blocks_16x16)
    tile_block_amaxes(vectors, block_amax);  // synchronises the CTA
  if constexpr (kRowwise) {
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i) {
      quantize_rowwise_vector(p, tile, detail::load_row(i), detail::load_col(), vectors[i],
                              rowwise_encode, block_amax);
    }
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    // Thread t: column t % 64, block rows 2 * (t / 64) and the next (32 consecutive rows).
    const int column = static_cast<int>(threadIdx.x) % kTileCols;
    const int block_row = static_cast<int>(threadIdx.x) / kTileCols * 2;
    quantize_columnwise_block(p, tile, staged, column, block_row, columnwise_encode, block_amax);
    quantize_columnwise_block(p, tile, staged, column, block_row + 1, columnwise_encode,
                              block_amax);
  }
}

}  // namespace

void quantize_nvfp4(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Nvfp4Options& options, const Nvfp4CopyBuffers& rowwise,
                    const Nvfp4CopyBuffers& columnwise, Nvfp4TensorScalars* scalars,
                    cudaStream_t stream) {
  require_nvfp4_shape(rows, cols, copies, options);
  detail::require_device_pointer(input, 16, "NVFP4 quantize: input");
  detail::require_device_pointer(scalars, alignof(Nvfp4TensorScalars), "NVFP4 quantize: scalars");
  Nvfp4Params p{};
  detail::take_copy_buffers(copies, rowwise, columnwise, 8, "NVFP4 quantize", p.rowwise,
                            p.columnwise);
  p.grid = detail::make_tile_grid(input, rows, cols, kNvfp4BlockSize, copies, p.rowwise.scale,
                                  p.columnwise.scale, "NVFP4 quantize");
  p.scalars = scalars;
  p.blocks_16x16 = options.block_shape == Nvfp4BlockShape::k16x16;
  p.columnwise_hadamard = options.columnwise_hadamard && has_columnwise(copies);
  p.hadamard_sign_mask = hadamard_sign_mask(options.hadamard_seed);
  p.stochastic_rounding = options.stochastic_rounding;
  p.rounding_seed = options.rounding_seed;

  compute_nvfp4_amax(input, rows, cols, p.columnwise_hadamard, p.hadamard_sign_mask, scalars,
                     stream);
  detail::with_copies(copies, [&](auto rowwise_copy, auto columnwise_copy) {
    nvfp4_quantize_kernel<decltype(rowwise_copy)::value, decltype(columnwise_copy)::value>
        <<<p.grid.ctas, kTileThreads, 0, stream>>>(p);
  });
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
