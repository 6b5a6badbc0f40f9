#include "quant/nvfp4/quantize.h"

#include <cuda_fp8.h>

#include <cfloat>
#include <string>
#include <vector>

#include "quant/base/cuda_check.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/grouped_tiles.cuh"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/nvfp4/detail/amax.h"
#include "quant/nvfp4/detail/nibble_transpose.h"
#include "quant/nvfp4/detail/resident_ctas.h"
#include "quant/nvfp4/detail/scaling.h"
#include "quant/nvfp4/detail/stochastic_rounding.h"
#include "quant/nvfp4/hadamard.h"
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
using detail::kVectorsPerTileRow;
using detail::TileCursor;
using detail::TileGrid;
using detail::TilePosition;

constexpr uint32_t kFullWarp = 0xFFFFFFFFu;
constexpr int kWarps = kTileThreads / 32;
constexpr int kBlockRowsPerTile = kTileRows / kNvfp4BlockSize;  // 8
constexpr int kBlockColsPerTile = kTileCols / kNvfp4BlockSize;  // 4

// A launch's parameters. Which copies, stochastic rounding, the columnwise Hadamard transform
// and the transposed-codes path are template arguments of the kernel (they decide its register
// needs and its shared memory); the block shape is a plain flag.
struct Nvfp4Params {
  TileGrid grid;
  Nvfp4CopyBuffers rowwise;
  Nvfp4CopyBuffers columnwise;
  Nvfp4TensorScalars* scalars;
  bool blocks_16x16;
  HadamardSignWords hadamard_signs;
  uint64_t rounding_seed;
};

// The scale codes a finite block amax can get: __NV_SATFINITE keeps a non-negative, non-NaN
// input at or below 0x7E (448), so the element multiplier of every code is in a 128-entry table.
constexpr int kFiniteScaleCodes = 128;

// What a copy's blocks need: nvfp4_block_scale_factor (computed once), and each finite scale
// code's element multiplier,
// built once per CTA in shared memory (the full-precision division of nvfp4_element_multiplier
// runs once per code instead of once per block).
struct CopyScaling {
  float block_factor;
  const float* multipliers;
};

// The code's value, exactly: a non-negative E4M3 code shifted into an FP32 exponent and
// mantissa is its value times 2^-120 (E4M3 subnormals become FP32 subnormals).
__device__ inline float element_multiplier_of_code(uint32_t code, float encode_scale) {
  const float stored = fp32_from_bits(code << 20) * 0x1p120f;
  return nvfp4_element_multiplier(stored, encode_scale);
}

// A block's stored scale and what its elements are multiplied by before E2M1 rounding. A block
// holding inf or NaN is `poisoned`: NaN scale, element codes 0 (the caller selects them).
struct BlockScale {
  uint32_t code;
  float multiplier;
  bool poisoned;
};

__device__ inline BlockScale block_scale(float block_amax, const CopyScaling& scaling) {
  const bool poisoned = !(block_amax <= FLT_MAX);
  const uint32_t code = poisoned ? kNvfp4NanScale
                                 : __nv_cvt_float_to_fp8(nvfp4_block_scale_unrounded_from_factor(
                                                             block_amax, scaling.block_factor),
                                                         __NV_SATFINITE, __NV_E4M3);
  return BlockScale{code, scaling.multipliers[code % kFiniteScaleCodes], poisoned};
}

// E2M1 codes of 8 consecutive elements of a copy, element(k) for k = 0..7, the first at
// row-major position `index` (a multiple of 8, so their random bits come from one Philox block),
// packed in memory order. (`element` converts where it is used: fewer values live at once.)
// `signs` holds their sign bits (at 4k + 3, from sign_nibbles); no value is NaN (a block holding
// one is poisoned and never converted). With round to nearest, `small_products` says that the
// block's largest product amax * multiplier is below 7, and then so is every element's
// (rounding is monotonic): no clamp. That is every block whose E4M3 scale is normal (its
// largest product is then about 6).
template <bool kStochastic, typename Element>
__device__ inline uint32_t e2m1_word(Element element, float multiplier, const Nvfp4Params& p,
                                     uint32_t rounding_stream, uint64_t index, uint32_t signs,
                                     bool small_products) {
  if constexpr (kStochastic) {
    uint32_t word = signs - detail::kE2m1WordBias;  // see block_codecs.h
    const Philox4x32Block random = rounding_block(p.rounding_seed, rounding_stream, index);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      word += detail::e2m1_biased_stochastic(detail::e2m1_split_unsigned(element(k) * multiplier),
                                             rounding_bits_at(random, k))
              << (4 * k);
    }
    return word;
  } else {
    // Each branch packs its own codes: with the two merged before one packing, ptxas scheduled
    // the usual path worse (the W casts measured 1-2% slower).
    uint32_t sums[8];
    if (small_products) {
#pragma unroll
      for (int k = 0; k < 8; ++k)  // fabsf folds into the FMUL as an operand modifier
        sums[k] = detail::e2m1_unclamped_code_sum(fabsf(element(k)) * multiplier);
      return detail::pack_e2m1_magnitude_sums(sums) | signs;
    }
#pragma unroll
    for (int k = 0; k < 8; ++k)
      sums[k] = detail::e2m1_magnitude_code_sum(element(k) * multiplier);
    return detail::pack_e2m1_magnitude_sums(sums) | signs;
  }
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

// The sign bits of FP32 values a, b, c, d as byte masks, in bytes 0..3 (as SignMasks; the sign
// is in byte 3 of each value).
__device__ inline uint32_t fp32_sign_masks(float a, float b, float c, float d) {
  uint32_t ab;  // a, b in bytes 0, 1
  uint32_t cd;
  asm("prmt.b32 %0, %1, %2, 0x00FB;" : "=r"(ab) : "r"(fp32_bits(a)), "r"(fp32_bits(b)));
  asm("prmt.b32 %0, %1, %2, 0x00FB;" : "=r"(cd) : "r"(fp32_bits(c)), "r"(fp32_bits(d)));
  return __byte_perm(ab, cd, 0x5410);
}

// The sign bits of 8 FP32 values as an E2M1 word's.
__device__ inline uint32_t fp32_sign_nibbles(const float* values) {
  return sign_nibbles(fp32_sign_masks(values[0], values[2], values[4], values[6]),
                      fp32_sign_masks(values[1], values[3], values[5], values[7]));
}

// Shared memory of one CTA. `staged` holds the BF16 tile for a columnwise copy made from the
// input (and `block_amax` its 16x16 blocks' amaxes); `codes` the rowwise codes (and
// `block_codes` the 16x16 blocks' scale codes) for one made by transposing them.
template <bool kStageInput, bool kTransposeCodes>
struct Nvfp4Shared {
  uint32_t staged[kStageInput ? kTileRows : 1][kStagedWords];
  uint32_t block_amax[kBlockRowsPerTile][kBlockColsPerTile];
  uint32_t codes[kTransposeCodes ? kTileRows : 1][kVectorsPerTileRow];
  uint8_t block_codes[kBlockColsPerTile][kBlockRowsPerTile];  // [block col][block row]
  float multipliers[2][kFiniteScaleCodes];                    // rowwise, columnwise
};

// For 16x16 blocks: the amax (BF16 magnitude bits) of this thread's block. Warp w holds block
// row w (detail/quantize_tile.cuh), and a thread's four vectors lie in one block: the block's
// other 28 vectors are in the lanes l ^ 1 (its other 8 columns), l ^ 8, l ^ 16, l ^ 24 (its
// other rows).
static_assert(detail::kRowsPerWarp == kNvfp4BlockSize && kBlockRowsPerTile == kWarps);
__device__ inline uint32_t block_amax_16x16(const uint4 (&vectors)[kLoadsPerThread]) {
  uint32_t m = 0;
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i)
    m = max(m, bf16_abs_max_bits(vectors[i]));
  m = max(m, __shfl_xor_sync(kFullWarp, m, 1));
  m = max(m, __shfl_xor_sync(kFullWarp, m, 8));
  return max(m, __shfl_xor_sync(kFullWarp, m, 16));
}

// Word `g` of a tile row's codes in `codes`, XOR-swizzled by (row / 8) % 8 so that the
// transposing threads (16 consecutive 8-row groups per half warp) read different banks.
__device__ inline int code_word(int row, int g) {
  return g ^ static_cast<int>(static_cast<unsigned>(row) / 8 % 8);
}

// One thread's 8 elements of the rowwise codes, of load i, in a block of amax `amax` and scale
// `scale`: stored to the rowwise copy when kRowwise, to shared memory when kTransposeCodes.
template <bool kRowwise, bool kStochastic, bool kTransposeCodes, bool kFullTile, typename Shared>
__device__ inline void quantize_rowwise_vector(const Nvfp4Params& p, const TilePosition& tile,
                                               const detail::RowwiseTargets& targets,
                                               uint32_t* row_words, int64_t row_word_step, int i,
                                               const uint4& vector, float amax,
                                               const BlockScale& scale, Shared& shared) {
  const int row = detail::load_row(i);
  const int col = detail::load_col();
  if (!kFullTile && (row >= tile.valid_rows || col >= tile.valid_cols))
    return;

  // A finite block has a positive, finite multiplier, so no product is NaN and each has its
  // element's sign. A poisoned block's codes are computed from junk and replaced by 0.
  const SignMasks sign_bytes = sign_masks(vector.x, vector.y, vector.z, vector.w);
  const auto element = [&vector](int k) { return bf16_bits_to_float(bf16_bits_of(vector, k)); };
  uint32_t word = e2m1_word<kStochastic>(
      element, scale.multiplier, p, kRowwiseRoundingStream,
      static_cast<uint64_t>(targets.first_index + i * targets.index_step),
      sign_nibbles(sign_bytes.low, sign_bytes.high), amax * scale.multiplier < 7.0f);
  word = scale.poisoned ? 0u : word;
  if constexpr (kRowwise) {
    row_words[i * row_word_step] = word;
    if (col % kNvfp4BlockSize == 0)
      targets.scale[detail::kRowwiseScaleStep * i] = static_cast<uint8_t>(scale.code);
  }
  if constexpr (kTransposeCodes) {
    shared.codes[row][code_word(row, col / kVectorElements)] = word;
    if (row % kNvfp4BlockSize == 0 && col % kNvfp4BlockSize == 0) {
      shared.block_codes[col / kNvfp4BlockSize][row / kNvfp4BlockSize] =
          static_cast<uint8_t>(scale.code);
    }
  }
}

// The columnwise copy of 16x16 blocks from the rowwise codes in shared memory: both copies share
// each block's scale (and, without Hadamard transform or stochastic rounding, the tensor scale
// and every rounding), so the columnwise codes are the rowwise ones transposed. Threads 0..127
// each transpose an 8x8 group of codes (rows 8 * (t % 16) .., columns 8 * (t / 16) ..) and
// write its 8 columns as 4 bytes each: a half warp covers 64 contiguous bytes of a columnwise
// row. Threads 128..255 write the scales: each one row of the columnwise copy's 8 block
// scales for this tile, two groups of 4 adjacent bytes in the swizzled layout.
template <typename Shared>
__device__ inline void columnwise_from_codes(const Nvfp4Params& p, const TilePosition& tile,
                                             const Shared& shared) {
  constexpr int kTransposers = kTileRows / 8 * kVectorsPerTileRow;  // 128
  const int t = static_cast<int>(threadIdx.x);
  if (t < kTransposers) {
    const int row_group = t % 16;
    const int col_group = t / 16;
    const int first_row = 8 * row_group;
    if (first_row >= tile.valid_rows || 8 * col_group >= tile.valid_cols)
      return;
    uint32_t words[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      words[k] = shared.codes[first_row + k][code_word(first_row + k, col_group)];
    detail::transpose_nibbles_8x8(words);
    const int64_t out_row = tile.col0 + 8 * col_group;
    auto* out = reinterpret_cast<uint32_t*>(p.columnwise.data +
                                            (out_row * p.grid.rows + tile.row0 + first_row) / 2);
    const int64_t out_step = p.grid.rows / 8;  // words per columnwise row
#pragma unroll
    for (int j = 0; j < 8; ++j)
      out[j * out_step] = words[j];
    return;
  }
  const int u = t - kTransposers;
  const int col = u % kTileCols;
  const int half = u / kTileCols;  // block rows 4 * half .. + 3
  const int first_block_row = 4 * half;
  const int valid_block_rows = tile.valid_rows / kNvfp4BlockSize - first_block_row;
  if (col >= tile.valid_cols || valid_block_rows <= 0)
    return;
  const int64_t out_row = tile.col0 + col;
  uint8_t* scale = &detail::swizzled_scale_at(
      p.columnwise.scale, out_row - out_row % kScaleTileRows,
      static_cast<int>(out_row % kScaleTileRows), (tile.row0 / kNvfp4BlockSize) + first_block_row,
      p.grid.columnwise_padding.padded_scale_cols);
  const uint8_t* codes = &shared.block_codes[col / kNvfp4BlockSize][first_block_row];
  if (valid_block_rows >= 4) {
    *reinterpret_cast<uint32_t*>(scale) = *reinterpret_cast<const uint32_t*>(codes);
  } else {
    for (int b = 0; b < valid_block_rows; ++b)  // the rest is padding, written elsewhere
      scale[b] = codes[b];
  }
}

// This thread's columnwise slice of the staged input: 16 rows (one block) of two neighbouring
// columns, Hadamard-transformed when asked. Each column's block becomes 8 bytes of one row of
// the transposed copy; the 8 lanes of a column pair write 64 contiguous bytes of each of its
// two rows.
template <bool kStochastic, bool kHadamard, typename Shared>
__device__ inline void quantize_columnwise_slice(const Nvfp4Params& p, const TilePosition& tile,
                                                 const CopyScaling& scaling, const Shared& shared) {
  const ColumnSlice slice = detail::column_slice();
  if (slice.first_col >= tile.valid_cols || slice.first_row >= tile.valid_rows)
    return;
  uint32_t words[kSliceRows];
  detail::read_column_slice(shared.staged, slice, words);
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
          shared.block_amax[slice.first_row / kNvfp4BlockSize][slice.first_col / kNvfp4BlockSize]);
    } else if constexpr (!kHadamard) {
      amax = bf16_bits_to_float(j == 0 ? amax_pair & 0xFFFFu : amax_pair >> 16);
    } else {
      uint32_t amax_bits = 0;
#pragma unroll
      for (int k = 0; k < kNvfp4BlockSize; ++k)
        amax_bits = max(amax_bits, fp32_bits(values[k]) & 0x7FFFFFFFu);
      amax = fp32_from_bits(amax_bits);
    }

    const BlockScale scale = block_scale(amax, scaling);
    const int64_t out_row = tile.col0 + slice.first_col + j;
    const int64_t out_col = tile.row0 + slice.first_row;
    const auto index = static_cast<uint64_t>(out_row * p.grid.rows + out_col);
    uint2 codes = make_uint2(0, 0);
    if (!scale.poisoned) {
      uint32_t signs[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if constexpr (kHadamard) {
          signs[h] = fp32_sign_nibbles(values + 8 * h);  // the transformed values' signs
        } else {
          signs[h] = j == 0 ? sign_nibbles(even_rows[h].low, odd_rows[h].low)
                            : sign_nibbles(even_rows[h].high, odd_rows[h].high);
        }
      }
      const bool small_products = amax * scale.multiplier < 7.0f;
      const auto first = [&values](int k) { return values[k]; };
      const auto second = [&values](int k) { return values[8 + k]; };
      codes.x = e2m1_word<kStochastic>(first, scale.multiplier, p, kColumnwiseRoundingStream, index,
                                       signs[0], small_products);
      codes.y = e2m1_word<kStochastic>(second, scale.multiplier, p, kColumnwiseRoundingStream,
                                       index + 8, signs[1], small_products);
    }
    *reinterpret_cast<uint2*>(p.columnwise.data + index / 2) = codes;
    detail::swizzled_scale_at(p.columnwise.scale, out_row - out_row % kScaleTileRows,
                              static_cast<int>(out_row % kScaleTileRows), out_col / kNvfp4BlockSize,
                              p.grid.columnwise_padding.padded_scale_cols) = scale.code;
  }
}

// detail::rowwise_targets for NVFP4, cheaper: a tile's 64 columns are 4 blocks, so its rowwise
// scales are exactly one 128x4 tile of the swizzled layout, and only that tile's index changes
// from tile to tile.
__device__ inline detail::RowwiseTargets rowwise_targets(const Nvfp4Params& p,
                                                         const TilePosition& tile) {
  static_assert(kTileRows == kScaleTileRows && kTileCols == kNvfp4BlockSize * kScaleTileCols);
  const auto row = static_cast<unsigned>(detail::load_row(0));
  const auto col = static_cast<unsigned>(detail::load_col());
  const auto scale_tiles_per_row =
      static_cast<uint64_t>(p.grid.rowwise_padding.padded_scale_cols) / kScaleTileCols;
  const uint64_t scale_tile = static_cast<uint64_t>(tile.row0) / kTileRows * scale_tiles_per_row +
                              static_cast<uint64_t>(tile.col0) / kTileCols;
  const int64_t first_index = (tile.row0 + row) * p.grid.cols + tile.col0 + col;
  return detail::RowwiseTargets{
      first_index, detail::kRowsPerLoad * p.grid.cols,
      p.rowwise.scale + scale_tile * kScaleTileBytes +
          swizzled_offset_in_tile(static_cast<int>(row), static_cast<int>(col / kNvfp4BlockSize))};
}

// One tile, its vectors already loaded. Shared memory is reused from tile to tile, so the CTA
// first waits for every reader of the previous tile (and, on its first tile, for the
// multiplier tables); a rowwise copy shares nothing else from tile to tile.
template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes,
          bool kFullTile, typename Shared>
__device__ inline void quantize_tile(const Nvfp4Params& p, const TilePosition& tile,
                                     const uint4 (&vectors)[kLoadsPerThread],
                                     const CopyScaling& rowwise_scaling,
                                     const CopyScaling& columnwise_scaling, bool first_tile,
                                     Shared& shared) {
  constexpr bool kStageInput = kColumnwise && !kTransposeCodes;
  if (first_tile || kColumnwise)
    __syncthreads();
  if constexpr (kStageInput)
    detail::stage_tile(vectors, shared.staged);
  // 16x16 blocks: this thread's block amax, in shared memory too for the staged columnwise copy.
  const bool blocks_16x16 = kTransposeCodes || p.blocks_16x16;
  uint32_t block_amax_bits = 0;
  if (blocks_16x16) {
    block_amax_bits = block_amax_16x16(vectors);
    const auto lane = static_cast<unsigned>(threadIdx.x) % 32;
    if (kStageInput && lane < kVectorsPerTileRow && lane % 2 == 0)
      shared.block_amax[threadIdx.x / 32][lane / 2] = block_amax_bits;
  }
  if constexpr (kRowwise || kTransposeCodes) {
    // Where the rowwise copy goes, if it is written; its data as words (a vector's 8 codes).
    detail::RowwiseTargets targets{0, 0, nullptr};
    uint32_t* row_words = nullptr;
    int64_t row_word_step = 0;
    if constexpr (kRowwise) {
      targets = rowwise_targets(p, tile);
      row_words = reinterpret_cast<uint32_t*>(p.rowwise.data) + targets.first_index / 8;
      row_word_step = targets.index_step / 8;
    }
    if (blocks_16x16) {
      // One block, so one scale, for the thread's four vectors.
      const float amax = bf16_bits_to_float(block_amax_bits);
      const BlockScale scale = block_scale(amax, rowwise_scaling);
#pragma unroll
      for (int i = 0; i < kLoadsPerThread; ++i) {
        quantize_rowwise_vector<kRowwise, kStochastic, kTransposeCodes, kFullTile>(
            p, tile, targets, row_words, row_word_step, i, vectors[i], amax, scale, shared);
      }
    } else {
      // 1x16 blocks: a block's other 8 elements are in the neighbouring lane.
#pragma unroll
      for (int i = 0; i < kLoadsPerThread; ++i) {
        uint32_t amax_bits = bf16_abs_max_bits(vectors[i]);
        amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 1));
        const float amax = bf16_bits_to_float(amax_bits);
        quantize_rowwise_vector<kRowwise, kStochastic, kTransposeCodes, kFullTile>(
            p, tile, targets, row_words, row_word_step, i, vectors[i], amax,
            block_scale(amax, rowwise_scaling), shared);
      }
    }
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    if constexpr (kTransposeCodes) {
      columnwise_from_codes(p, tile, shared);
    } else {
      quantize_columnwise_slice<kStochastic, kHadamard>(p, tile, columnwise_scaling, shared);
    }
  }
}

// Registers per thread each variant may use, as CTAs per SM: four CTAs of 256 threads leave 64
// registers, enough for the vectors of two tiles (the one converted, the one loading) and the
// round-to-nearest conversion; stochastic rounding and the columnwise copy made from the staged
// input (with its 16-row slices) get 85 so that they spill little or nothing.
constexpr int min_ctas_per_sm(bool columnwise, bool stochastic, bool transpose_codes) {
  return stochastic || (columnwise && !transpose_codes) ? 3 : 4;
}

// Both copies' scaling from the tensor's amaxes (the amax kernel ran before the quantize kernel
// in the stream): each finite scale code's multiplier goes to `shared`, read after the next
// __syncthreads.
struct Scalings {
  float rowwise_encode;
  float columnwise_encode;
  CopyScaling rowwise;
  CopyScaling columnwise;
};

template <bool kRowwise, bool kColumnwise, bool kTransposeCodes, typename Shared>
__device__ inline Scalings prepare_scalings(const Nvfp4Params& p, Shared& shared) {
  const float rowwise_encode = nvfp4_encode_scale(p.scalars->amax_rowwise);
  const float columnwise_encode = nvfp4_encode_scale(p.scalars->amax_columnwise);
  static_assert(kTileThreads == 2 * kFiniteScaleCodes);
  const int copy = static_cast<int>(threadIdx.x) / kFiniteScaleCodes;
  if (copy == 0 ? kRowwise || kTransposeCodes : kColumnwise) {
    const auto code = static_cast<uint32_t>(threadIdx.x) % kFiniteScaleCodes;
    shared.multipliers[copy][code] =
        element_multiplier_of_code(code, copy == 0 ? rowwise_encode : columnwise_encode);
  }
  return Scalings{rowwise_encode, columnwise_encode,
                  CopyScaling{nvfp4_block_scale_factor(rowwise_encode), shared.multipliers[0]},
                  CopyScaling{nvfp4_block_scale_factor(columnwise_encode), shared.multipliers[1]}};
}

// The copies' tensor scales, which one thread of the launch stores.
__device__ inline void store_tensor_scales(const Nvfp4Params& p, const Scalings& scalings) {
  p.scalars->tensor_scale_rowwise = nvfp4_tensor_dequant_scale(scalings.rowwise_encode);
  p.scalars->tensor_scale_columnwise = nvfp4_tensor_dequant_scale(scalings.columnwise_encode);
}

// quantize_tile for a tile whole or not: whole tiles (the usual case) skip the per-vector bounds
// checks.
template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes,
          typename Shared>
__device__ inline void quantize_any_tile(const Nvfp4Params& p, const TilePosition& tile,
                                         const uint4 (&vectors)[kLoadsPerThread],
                                         const Scalings& scalings, bool first_tile,
                                         Shared& shared) {
  if (tile.valid_rows == kTileRows && tile.valid_cols == kTileCols) {
    quantize_tile<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes, true>(
        p, tile, vectors, scalings.rowwise, scalings.columnwise, first_tile, shared);
  } else {
    quantize_tile<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes, false>(
        p, tile, vectors, scalings.rowwise, scalings.columnwise, first_tile, shared);
  }
}

// Each data CTA walks its tiles (TileCursor), loading the next tile's vectors before it
// converts the current one, so that the loads are in flight during the arithmetic; the set-up
// (encode scales, multiplier tables) overlaps the first tile's loads.
template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes>
__global__ void __launch_bounds__(kTileThreads,
                                  min_ctas_per_sm(kColumnwise, kStochastic, kTransposeCodes))
    nvfp4_quantize_kernel(const Nvfp4Params p) {
  __shared__ __align__(16) Nvfp4Shared<kColumnwise && !kTransposeCodes, kTransposeCodes> shared;
  if (detail::handled_as_padding_cta(p.grid))
    return;
  TileCursor cursor = detail::first_tile(p.grid);
  uint4 vectors[kLoadsPerThread];
  detail::load_tile_vectors(p.grid, detail::tile_position(p.grid, cursor), vectors);

  const Scalings scalings = prepare_scalings<kRowwise, kColumnwise, kTransposeCodes>(p, shared);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    store_tensor_scales(p, scalings);

  for (bool first = true;; first = false) {
    const TilePosition tile = detail::tile_position(p.grid, cursor);
    detail::advance_tile(p.grid, cursor);
    const bool more = detail::is_data_tile(p.grid, cursor);
    uint4 next[kLoadsPerThread];
    if (more)
      detail::load_tile_vectors(p.grid, detail::tile_position(p.grid, cursor), next);
    quantize_any_tile<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes>(
        p, tile, vectors, scalings, first, shared);
    if (!more)
      break;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i)
      vectors[i] = next[i];
  }
}

// Every group at once (detail/grouped_tiles.cuh), each with its own amaxes: the walk above over
// all groups' tiles. A CTA sets up a group's scaling when its walk enters the group (a walk
// visits a group's tiles in one run), and the CTA at a group's tile 0 stores its tensor scales.
template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes>
__global__ void __launch_bounds__(kTileThreads,
                                  min_ctas_per_sm(kColumnwise, kStochastic, kTransposeCodes))
    nvfp4_grouped_quantize_kernel(const detail::GroupedLaunch<Nvfp4Params> launch) {
  __shared__ __align__(16) Nvfp4Shared<kColumnwise && !kTransposeCodes, kTransposeCodes> shared;
  if (detail::handled_as_grouped_padding_cta(launch))
    return;
  detail::GroupedCursor cursor = detail::first_grouped_tile(launch);
  const Nvfp4Params* p = &launch.params[cursor.at.group];
  uint4 vectors[kLoadsPerThread];
  detail::load_tile_vectors(p->grid, detail::tile_in_group(p->grid, cursor.at.tile), vectors);

  Scalings scalings{};
  int scaled_group = -1;
  for (bool first = true;; first = false) {
    const bool new_group = cursor.at.group != scaled_group;
    if (new_group) {
      if (!first)
        __syncthreads();  // every thread is done with the previous group's multipliers
      scalings = prepare_scalings<kRowwise, kColumnwise, kTransposeCodes>(*p, shared);
      scaled_group = cursor.at.group;
    }
    if (cursor.at.tile == 0 && threadIdx.x == 0)
      store_tensor_scales(*p, scalings);
    const Nvfp4Params& current = *p;
    const TilePosition tile = detail::tile_in_group(current.grid, cursor.at.tile);
    detail::advance_grouped_tile(launch, cursor);
    const bool more = detail::is_grouped_data_tile(launch, cursor);
    uint4 next[kLoadsPerThread];
    if (more) {
      p = &launch.params[cursor.at.group];
      detail::load_tile_vectors(p->grid, detail::tile_in_group(p->grid, cursor.at.tile), next);
    }
    // A new group's multipliers are read after quantize_tile's first __syncthreads.
    quantize_any_tile<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes>(
        current, tile, vectors, scalings, new_group, shared);
    if (!more)
      break;
#pragma unroll
    for (int i = 0; i < kLoadsPerThread; ++i)
      vectors[i] = next[i];
  }
}

// A variant of the quantize kernels: its template arguments as a type.
template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes>
struct Variant {};

template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes>
constexpr auto tensor_kernel(
    Variant<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes>) {
  return nvfp4_quantize_kernel<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes>;
}

template <bool kRowwise, bool kColumnwise, bool kStochastic, bool kHadamard, bool kTransposeCodes>
constexpr auto grouped_kernel(
    Variant<kRowwise, kColumnwise, kStochastic, kHadamard, kTransposeCodes>) {
  return nvfp4_grouped_quantize_kernel<kRowwise, kColumnwise, kStochastic, kHadamard,
                                       kTransposeCodes>;
}

bool columnwise_hadamard(OperandCopies copies, const Nvfp4Options& options) {
  return options.columnwise_hadamard && has_columnwise(copies);
}

// Calls launch(Variant<...>{}) with the variant that quantizes `copies` with `options`.
template <typename Launch>
void with_variant(OperandCopies copies, const Nvfp4Options& options, Launch&& launch) {
  const bool hadamard_copy = columnwise_hadamard(copies, options);
  // 16x16 blocks without a transform or random rounding: the columnwise codes are the rowwise
  // ones transposed (columnwise_from_codes).
  const bool transpose_codes = options.block_shape == Nvfp4BlockShape::k16x16 &&
                               !options.stochastic_rounding && !hadamard_copy &&
                               has_columnwise(copies);
  detail::with_copies(copies, [&](auto rowwise_copy, auto columnwise_copy) {
    constexpr bool kRowwise = decltype(rowwise_copy)::value;
    constexpr bool kColumnwise = decltype(columnwise_copy)::value;
    if constexpr (kColumnwise) {
      if (transpose_codes) {
        launch(Variant<kRowwise, true, false, false, true>{});
        return;
      }
    }
    detail::with_flag(options.stochastic_rounding, [&](auto stochastic) {
      constexpr bool kStochastic = decltype(stochastic)::value;
      detail::with_flag(hadamard_copy, [&](auto hadamard) {
        constexpr bool kHadamard = decltype(hadamard)::value;
        // No kernel transforms a copy it does not write.
        if constexpr (kColumnwise || !kHadamard)
          launch(Variant<kRowwise, kColumnwise, kStochastic, kHadamard, false>{});
      });
    });
  });
}

// The parameters of one tensor's launch; throws std::invalid_argument as quantize_nvfp4 does.
Nvfp4Params nvfp4_params(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                         OperandCopies copies, const Nvfp4Options& options, uint16_t sign_mask,
                         const Nvfp4CopyBuffers& rowwise, const Nvfp4CopyBuffers& columnwise,
                         Nvfp4TensorScalars* scalars) {
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
  p.hadamard_signs = hadamard_sign_words(sign_mask);
  p.rounding_seed = options.rounding_seed;
  return p;
}

}  // namespace

void quantize_nvfp4(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Nvfp4Options& options, const Nvfp4CopyBuffers& rowwise,
                    const Nvfp4CopyBuffers& columnwise, Nvfp4TensorScalars* scalars,
                    cudaStream_t stream) {
  const uint16_t sign_mask = hadamard_sign_mask(options.hadamard_seed);
  Nvfp4Params p =
      nvfp4_params(input, rows, cols, copies, options, sign_mask, rowwise, columnwise, scalars);
  compute_nvfp4_amax(input, rows, cols, columnwise_hadamard(copies, options), sign_mask, scalars,
                     stream);
  with_variant(copies, options, [&](auto variant) {
    const auto kernel = tensor_kernel(variant);
    detail::limit_data_ctas(p.grid, detail::resident_ctas(kernel, kTileThreads), "NVFP4 quantize");
    kernel<<<p.grid.ctas, kTileThreads, 0, stream>>>(p);
  });
  CUDA_CHECK_LAUNCH();
}

Nvfp4GroupedQuantize::Nvfp4GroupedQuantize(const __nv_bfloat16* input,
                                           const Nvfp4GroupedLayout& layout,
                                           const Nvfp4Options& options,
                                           const Nvfp4CopyBuffers& rowwise,
                                           const Nvfp4CopyBuffers& columnwise,
                                           Nvfp4TensorScalars* scalars)
    : copies_(layout.copies()),
      options_(options),
      amax_(input, layout.group_rows(), layout.cols(), columnwise_hadamard(copies_, options),
            hadamard_sign_mask(options.hadamard_seed), scalars) {
  const uint16_t sign_mask = hadamard_sign_mask(options.hadamard_seed);
  std::vector<Nvfp4Params> params;
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    const GroupPlacement& at = layout.placement(g);
    if (at.rows > 0) {
      params.push_back(nvfp4_params(
          input + at.first_row * layout.cols(), at.rows, layout.cols(), copies_, options, sign_mask,
          detail::group_buffers(rowwise, at.data, at.rowwise_scale),
          detail::group_buffers(columnwise, at.data, at.columnwise_scale), scalars + g));
    }
  }
  tables_ = detail::make_grouped_tile_tables(params, layout.rows(), layout.cols(),
                                             "NVFP4 grouped quantize");
}

size_t Nvfp4GroupedQuantize::workspace_bytes() const {
  return amax_workspace_bytes() + tables_.tables.bytes();
}

size_t Nvfp4GroupedQuantize::amax_workspace_bytes() const {
  const size_t alignment = detail::DeviceTables::kAlignment;
  return (amax_.workspace_bytes() + alignment - 1) / alignment * alignment;
}

void Nvfp4GroupedQuantize::upload(void* workspace, cudaStream_t stream) {
  amax_.upload(workspace, stream);
  tables_.tables.upload(static_cast<unsigned char*>(workspace) + amax_workspace_bytes(), stream,
                        "NVFP4 grouped quantize");
}

void Nvfp4GroupedQuantize::quantize(cudaStream_t stream) const {
  if (tables_.groups == 0)
    return;
  amax_.compute(stream);
  with_variant(copies_, options_, [&](auto variant) {
    const auto kernel = grouped_kernel(variant);
    const auto launch = detail::grouped_launch<Nvfp4Params>(
        tables_, detail::resident_ctas(kernel, kTileThreads), "NVFP4 grouped quantize");
    kernel<<<detail::grouped_grid(launch, tables_), kTileThreads, 0, stream>>>(launch);
  });
  CUDA_CHECK_LAUNCH();
}

size_t Nvfp4GroupedQuantize::launches() const {
  return tables_.groups == 0 ? 0 : amax_.launches() + 1;
}

}  // namespace gemmscope
