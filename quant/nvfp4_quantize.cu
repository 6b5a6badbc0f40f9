#include "quant/nvfp4_quantize.h"

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
using detail::ColumnSlice;
using detail::kLoadsPerThread;
using detail::kSliceRows;
using detail::kStagedWords;
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

// Stochastic rounding and the columnwise Hadamard transform are template arguments of the kernel
// (they decide its register needs); the block shape is a plain flag.
struct Nvfp4Params {
  TileGrid grid;
  Nvfp4CopyBuffers rowwise;
  Nvfp4CopyBuffers columnwise;
  Nvfp4TensorScalars* scalars;
  bool blocks_16x16;
  HadamardSignWords hadamard_signs;
  uint64_t rounding_seed;
};

// A block's stored scale and what its elements are multiplied by before E2M1 rounding.
struct BlockScale {
  uint32_t code;
  float multiplier;
  bool poisoned;  // the block holds inf or NaN: NaN scale, element codes 0
};

// The scale codes a finite block amax can get: __NV_SATFINITE keeps a non-negative, non-NaN
// input at or below 0x7E (448), so the element multiplier of every code is in a 128-entry table.
constexpr int kFiniteScaleCodes = 128;

// The element multiplier of block-scale `code` of a copy with `encode_scale`.
__device__ inline float element_multiplier_of_code(uint32_t code, float encode_scale) {
  // The code's value, exactly: a non-negative E4M3 code shifted into an FP32 exponent and
  // mantissa is its value times 2^-120 (E4M3 subnormals become FP32 subnormals).
  const float stored = fp32_from_bits(code << 20) * 0x1p120f;
  return nvfp4_element_multiplier(stored, encode_scale);
}

// Each copy's multipliers (multipliers[code]), built once per CTA: the full-precision division of
// nvfp4_element_multiplier then runs once per code instead of once per block.
__device__ inline BlockScale block_scale(float block_amax, float encode_scale,
                                         const float* multipliers) {
  if (!(block_amax <= FLT_MAX))
    return BlockScale{kNvfp4NanScale, 0.0f, true};
  const uint32_t code = __nv_cvt_float_to_fp8(nvfp4_block_scale_unrounded(block_amax, encode_scale),
                                              __NV_SATFINITE, __NV_E4M3);
  return BlockScale{code, multipliers[code], false};
}

// E2M1 codes of 8 consecutive elements of a copy, the first at row-major position `index` (a
// multiple of 8, so their random bits come from one Philox block), packed in memory order.
// kSignsGiven: `signs` holds the elements' sign bits at 4k + 3 (sign_nibbles below) and no value
// is NaN, so each element needs only its magnitude's code; otherwise `signs` is 0 and each
// element's sign comes from its value (a NaN encodes as +6, like e2m1_split).
template <bool kStochastic, bool kSignsGiven>
__device__ inline uint32_t e2m1_word(const float* values, float multiplier, const Nvfp4Params& p,
                                     uint32_t rounding_stream, uint64_t index, uint32_t signs) {
  uint32_t word = signs - detail::kE2m1WordBias;  // see block_codecs.h
  const auto split = [multiplier](float value) {
    return kSignsGiven ? detail::e2m1_split_unsigned(value * multiplier)
                       : detail::e2m1_split(value * multiplier);
  };
  if constexpr (kStochastic) {
    const Philox4x32Block random = rounding_block(p.rounding_seed, rounding_stream, index);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      word += detail::e2m1_biased_stochastic(split(values[k]), rounding_bits_at(random, k))
              << (4 * k);
    }
  } else {
#pragma unroll
    for (int k = 0; k < 8; ++k)
      word += detail::e2m1_biased_nearest(split(values[k])) << (4 * k);
  }
  return word;
}

// The sign bits of BF16 pairs a, b, c, d as byte masks (0xFF for a negative value, else 0):
// low = the low halves' in bytes 0..3, high = the high halves'. prmt's selector nibbles with the
// top bit set replicate the sign of the chosen byte (the high byte of a BF16 half).
struct SignMasks {
  uint32_t low;
  uint32_t high;
};

__device__ inline SignMasks sign_masks(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint32_t ab;  // a.low, b.low, a.high, b.high
  uint32_t cd;
  asm("prmt.b32 %0, %1, %2, 0xFBD9;" : "=r"(ab) : "r"(a), "r"(b));
  asm("prmt.b32 %0, %1, %2, 0xFBD9;" : "=r"(cd) : "r"(c), "r"(d));
  return SignMasks{__byte_perm(ab, cd, 0x5410), __byte_perm(ab, cd, 0x7632)};
}

// The sign bits of an E2M1 word (bit 4k + 3 for element k) from the byte masks of its even and
// its odd elements (element 2m in byte m of `even`, element 2m + 1 in byte m of `odd`).
__device__ inline uint32_t sign_nibbles(uint32_t even, uint32_t odd) {
  return (even & 0x08080808u) | (odd & 0x80808080u);
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
template <bool kStochastic>
__device__ inline void quantize_rowwise_vector(const Nvfp4Params& p, const TilePosition& tile,
                                               const detail::RowwiseTargets& targets, int i,
                                               const uint4& vector, float encode_scale,
                                               const float* multipliers,
                                               const uint32_t (*block_amax)[kBlockColsPerTile]) {
  const int row = detail::load_row(i);
  const int col = detail::load_col();
  uint32_t amax_bits = 0;
  if (p.blocks_16x16) {
    amax_bits = block_amax[row / kNvfp4BlockSize][col / kNvfp4BlockSize];
  } else {
    amax_bits = bf16_abs_max_bits(vector);
    amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 1));
  }
  if (row >= tile.valid_rows || col >= tile.valid_cols)
    return;

  const BlockScale scale = block_scale(bf16_bits_to_float(amax_bits), encode_scale, multipliers);
  const auto index = static_cast<uint64_t>(targets.first_index + i * targets.index_step);
  uint32_t word = 0;
  if (!scale.poisoned) {
    float values[kVectorElements];
#pragma unroll
    for (int k = 0; k < kVectorElements; ++k)
      values[k] = bf16_bits_to_float(bf16_bits_of(vector, k));
    // The block is finite and the multiplier positive and finite, so no product is NaN and each
    // has its element's sign.
    const SignMasks signs = sign_masks(vector.x, vector.y, vector.z, vector.w);
    word = e2m1_word<kStochastic, true>(values, scale.multiplier, p, kRowwiseRoundingStream, index,
                                        sign_nibbles(signs.low, signs.high));
  }
  *reinterpret_cast<uint32_t*>(p.rowwise.data + index / 2) = word;
  if (col % kNvfp4BlockSize == 0)
    targets.scale[4 * i] = static_cast<uint8_t>(scale.code);
}

// This thread's columnwise slice: 16 rows (one block) of two neighbouring columns,
// Hadamard-transformed when asked. Each column's block becomes 8 bytes of one row of the
// transposed copy; the 8 lanes of a column pair write 64 contiguous bytes of each of its two rows.
template <bool kStochastic, bool kHadamard>
__device__ inline void quantize_columnwise_slice(const Nvfp4Params& p, const TilePosition& tile,
                                                 const uint32_t (*staged)[kStagedWords],
                                                 float encode_scale, const float* multipliers,
                                                 const uint32_t (*block_amax)[kBlockColsPerTile]) {
  const ColumnSlice slice = detail::column_slice();
  if (slice.first_col >= tile.valid_cols || slice.first_row >= tile.valid_rows)
    return;
  uint32_t words[kSliceRows];
  detail::read_column_slice(staged, slice, words);
  // Without the transform each value's sign is its element's (as in the rowwise copy): the byte
  // masks of rows 0, 2, .. 14 and 1, 3, .. 15, column 0 in `low`, column 1 in `high`.
  SignMasks even_rows[2] = {};
  SignMasks odd_rows[2] = {};
  if constexpr (kHadamard) {
#pragma unroll
    for (int k = 0; k < kSliceRows; ++k)
      words[k] ^= p.hadamard_signs.word[k];
  } else {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t* w = words + 8 * h;
      even_rows[h] = sign_masks(w[0], w[2], w[4], w[6]);
      odd_rows[h] = sign_masks(w[1], w[3], w[5], w[7]);
    }
  }
  // Untransformed 1x16 blocks: both columns' amaxes at once, as BF16 magnitudes in the two halves
  // (the FP32 magnitudes' bits are these shifted left by 16, so the maxima agree).
  uint32_t amax_pair = 0;
  if (!kHadamard && !p.blocks_16x16) {
#pragma unroll
    for (int k = 0; k < kSliceRows; ++k)
      amax_pair = __vmaxu2(amax_pair, words[k] & 0x7FFF7FFFu);
  }

#pragma unroll
  for (int j = 0; j < 2; ++j) {
    float values[kNvfp4BlockSize];
#pragma unroll
    for (int k = 0; k < kNvfp4BlockSize; ++k)
      values[k] = bf16_bits_to_float(j == 0 ? words[k] & 0xFFFFu : words[k] >> 16);
    if constexpr (kHadamard)
      hadamard_transform16(values);  // the signs are in `words`
    float amax = 0.0f;
    if (p.blocks_16x16) {
      amax = bf16_bits_to_float(
          block_amax[slice.first_row / kNvfp4BlockSize][slice.first_col / kNvfp4BlockSize]);
    } else if constexpr (!kHadamard) {
      amax = bf16_bits_to_float(j == 0 ? amax_pair & 0xFFFFu : amax_pair >> 16);
    } else {
      uint32_t amax_bits = 0;
#pragma unroll
      for (int k = 0; k < kNvfp4BlockSize; ++k)
        amax_bits = max(amax_bits, fp32_bits(values[k]) & 0x7FFFFFFFu);
      amax = fp32_from_bits(amax_bits);
    }

    const BlockScale scale = block_scale(amax, encode_scale, multipliers);
    const int64_t out_row = tile.col0 + slice.first_col + j;
    const int64_t out_col = tile.row0 + slice.first_row;
    const auto index = static_cast<uint64_t>(out_row * p.grid.rows + out_col);
    uint2 codes = make_uint2(0, 0);
    if (!scale.poisoned) {
      uint32_t signs[2] = {0, 0};
      if constexpr (!kHadamard) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          signs[h] = j == 0 ? sign_nibbles(even_rows[h].low, odd_rows[h].low)
                            : sign_nibbles(even_rows[h].high, odd_rows[h].high);
        }
      }
      codes.x = e2m1_word<kStochastic, !kHadamard>(values, scale.multiplier, p,
                                                   kColumnwiseRoundingStream, index, signs[0]);
      codes.y = e2m1_word<kStochastic, !kHadamard>(values + 8, scale.multiplier, p,
                                                   kColumnwiseRoundingStream, index + 8, signs[1]);
    }
    *reinterpret_cast<uint2*>(p.columnwise.data + index / 2) = codes;
    detail::swizzled_scale_at(p.columnwise.scale, out_row - out_row % kScaleTileRows,
                              static_cast<int>(out_row % kScaleTileRows), out_col / kNvfp4BlockSize,
                              p.grid.columnwise_padding.padded_scale_cols) = scale.code;
  }
}

// CTAs per SM each variant is compiled for: as many as its registers allow without spilling
// (the load phase of the CTAs resident on an SM is what keeps memory busy).
constexpr int min_ctas_per_sm(bool columnwise, bool stochastic, bool hadamard) {
  return hadamard || (stochastic && columnwise) ? 4 : 5;
}

template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard>
__global__ void __launch_bounds__(kTileThreads,
                                  min_ctas_per_sm(kColumnwise, kStochastic, kHadamard))
    nvfp4_quantize_kernel(const Nvfp4Params p) {
  __shared__ __align__(16) uint32_t staged[kColumnwise ? kTileRows : 1][kStagedWords];
  __shared__ uint32_t block_amax[kBlockRowsPerTile][kBlockColsPerTile];
  __shared__ float multipliers[2][kFiniteScaleCodes];  // rowwise, columnwise
  if (detail::handled_as_padding_cta(p.grid))
    return;
  // The amax kernel ran before this one in the stream.
  const float rowwise_encode = nvfp4_encode_scale(p.scalars->amax_rowwise);
  const float columnwise_encode = nvfp4_encode_scale(p.scalars->amax_columnwise);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    p.scalars->tensor_scale_rowwise = nvfp4_tensor_dequant_scale(rowwise_encode);
    p.scalars->tensor_scale_columnwise = nvfp4_tensor_dequant_scale(columnwise_encode);
  }
  static_assert(kTileThreads == 2 * kFiniteScaleCodes);
  const int copy = static_cast<int>(threadIdx.x) / kFiniteScaleCodes;
  if (copy == 0 ? kRowwise : kColumnwise) {
    const auto code = static_cast<uint32_t>(threadIdx.x) % kFiniteScaleCodes;
    multipliers[copy][code] =
        element_multiplier_of_code(code, copy == 0 ? rowwise_encode : columnwise_encode);
  }

  const TilePosition tile = detail::tile_position(p.grid);
  uint4 vectors[kLoadsPerThread];
  detail::load_tile<kColumnwise>(p.grid, tile, vectors, staged);
  if (p.blocks_16x16)
    tile_block_amaxes(vectors, block_amax);  // synchronises the CTA (multipliers included)
  else if (kRowwise)
    __syncthreads();  // the multipliers (the columnwise copy waits below anyway)
  if constexpr (kRowwise) {
    const detail::RowwiseTargets targets = detail::rowwise_targets(
        p.grid, tile, p.rowwise.scale, kNvfp4BlockSize, p.grid.rowwise_padding.padded_scale_cols);
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i) {
      quantize_rowwise_vector<kStochastic>(p, tile, targets, i, vectors[i], rowwise_encode,
                                           multipliers[0], block_amax);
    }
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    quantize_columnwise_slice<kStochastic, kHadamard>(p, tile, staged, columnwise_encode,
                                                      multipliers[1], block_amax);
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
  const uint16_t sign_mask = hadamard_sign_mask(options.hadamard_seed);
  p.hadamard_signs = hadamard_sign_words(sign_mask);
  p.rounding_seed = options.rounding_seed;
  const bool columnwise_hadamard = options.columnwise_hadamard && has_columnwise(copies);

  compute_nvfp4_amax(input, rows, cols, columnwise_hadamard, sign_mask, scalars, stream);
  detail::with_copies(copies, [&](auto rowwise_copy, auto columnwise_copy) {
    constexpr bool kRowwise = decltype(rowwise_copy)::value;
    constexpr bool kColumnwise = decltype(columnwise_copy)::value;
    detail::with_flag(options.stochastic_rounding, [&](auto stochastic) {
      constexpr bool kStochastic = decltype(stochastic)::value;
      detail::with_flag(columnwise_hadamard, [&](auto hadamard) {
        constexpr bool kHadamard = decltype(hadamard)::value;
        // No kernel transforms a copy it does not write.
        if constexpr (kColumnwise || !kHadamard) {
          nvfp4_quantize_kernel<kRowwise, kColumnwise, kStochastic, kHadamard>
              <<<p.grid.ctas, kTileThreads, 0, stream>>>(p);
        }
      });
    });
  });
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
