#include "quant/mxfp8/quantize.h"

#include <cuda_fp8.h>

#include <string>
#include <vector>

#include "quant/base/cuda_check.h"
#include "quant/block_scaled_shape.h"
#include "quant/detail/block_codecs.h"
#include "quant/detail/fp8_device.cuh"
#include "quant/detail/grouped_tiles.cuh"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"
#include "quant/mxfp8/detail/scaling.h"
#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

using detail::bf16_abs_max_bits;
using detail::bf16_bits_to_float;
using detail::bf16_magnitude_not_finite;
using detail::ColumnSlice;
using detail::kSliceRows;
using detail::kStagedWords;
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

// The block's E8M0 scale from its finite amax (BF16 magnitude bits). The target is at most
// BF16's max / 448 < 2^127, so e8m0_round_up takes none of its NaN, infinity or saturation
// branches and neither does the reciprocal of the code (below 0xFE).
__device__ inline uint32_t block_scale(uint32_t amax_bits) {
  return detail::e8m0_round_up_below_2_127(mxfp8_scale_target(bf16_bits_to_float(amax_bits)));
}

// One thread's 8 elements of a rowwise block; the block's other 24 are in the three
// neighbouring lanes. Every lane must call this (it shuffles).
__device__ inline void quantize_rowwise_vector(const Mxfp8Params& p, const TilePosition& tile,
                                               const detail::RowwiseTargets& targets, int i,
                                               const uint4& vector) {
  const int row = detail::load_row(i);
  const int col = detail::load_col();
  uint32_t amax_bits = bf16_abs_max_bits(vector);
  amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 1));
  amax_bits = max(amax_bits, __shfl_xor_sync(kFullWarp, amax_bits, 2));
  if (row >= tile.valid_rows || col >= tile.valid_cols)
    return;

  uint32_t scale = kMxfp8NanScale;
  uint2 codes = make_uint2(kNanCodes, kNanCodes);
  if (!bf16_magnitude_not_finite(amax_bits)) {
    scale = block_scale(amax_bits);
    const float factor = detail::e8m0_reciprocal_below_fe(scale);
    codes =
        make_uint2(e4m3_quad(vector.x, vector.y, factor), e4m3_quad(vector.z, vector.w, factor));
  }
  *reinterpret_cast<uint2*>(p.rowwise.data + targets.first_index + i * targets.index_step) = codes;
  if (col % kMxfp8BlockSize == 0)
    targets.scale[detail::kRowwiseScaleStep * i] = static_cast<uint8_t>(scale);
}

// This thread's columnwise slice: 16 rows of two neighbouring columns, the other 16 rows of
// their 32-row blocks being in the neighbouring lane. Each column's 16 codes are one 16-byte
// piece of a row of the transposed copy; the 8 lanes of a column pair write its two rows whole.
// Every lane must call this (it shuffles).
__device__ inline void quantize_columnwise_slice(const Mxfp8Params& p, const TilePosition& tile,
                                                 const uint32_t (*staged)[kStagedWords]) {
  const ColumnSlice slice = detail::column_slice();
  uint32_t words[kSliceRows];
  detail::read_column_slice(staged, slice, words);
  // Both columns' amaxes at once, as BF16 magnitudes in the two halves (see bf16_abs_max_bits).
  uint32_t amax_pair = 0;
#pragma unroll
  for (int k = 0; k < kSliceRows; ++k)
    amax_pair = __vmaxu2(amax_pair, words[k] & 0x7FFF7FFFu);
  amax_pair = __vmaxu2(amax_pair, __shfl_xor_sync(kFullWarp, amax_pair, 1));
  if (slice.first_col >= tile.valid_cols || slice.first_row >= tile.valid_rows)
    return;

#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const uint32_t amax_bits = j == 0 ? amax_pair & 0xFFFFu : amax_pair >> 16;
    // The BF16 pair (row k, row k + 1) of column j.
    const uint32_t selector = j == 0 ? 0x5410u : 0x7632u;
    uint32_t scale = kMxfp8NanScale;
    uint32_t codes[kSliceRows / 4];
#pragma unroll
    for (int k = 0; k < kSliceRows / 4; ++k)
      codes[k] = kNanCodes;
    if (!bf16_magnitude_not_finite(amax_bits)) {
      scale = block_scale(amax_bits);
      const float factor = detail::e8m0_reciprocal_below_fe(scale);
#pragma unroll
      for (int k = 0; k < kSliceRows / 4; ++k) {
        codes[k] = e4m3_quad(__byte_perm(words[4 * k], words[4 * k + 1], selector),
                             __byte_perm(words[4 * k + 2], words[4 * k + 3], selector), factor);
      }
    }
    const int64_t out_row = tile.col0 + slice.first_col + j;
    const int64_t out_col = tile.row0 + slice.first_row;
    *reinterpret_cast<uint4*>(p.columnwise.data + out_row * p.grid.rows + out_col) =
        make_uint4(codes[0], codes[1], codes[2], codes[3]);
    if (slice.first_row % kMxfp8BlockSize == 0) {
      detail::swizzled_scale_at(
          p.columnwise.scale, out_row - out_row % kScaleTileRows,
          static_cast<int>(out_row % kScaleTileRows), out_col / kMxfp8BlockSize,
          p.grid.columnwise_padding.padded_scale_cols) = static_cast<uint8_t>(scale);
    }
  }
}

// One CTA's tile: read once, both copies written.
template <bool kRowwise, bool kColumnwise>
__device__ inline void quantize_tile(const Mxfp8Params& p, const TilePosition& tile,
                                     uint32_t (*staged)[kStagedWords]) {
  uint4 vectors[detail::kLoadsPerThread];
  detail::load_tile<kColumnwise>(p.grid, tile, vectors, staged);
  if constexpr (kRowwise) {
    const detail::RowwiseTargets targets = detail::rowwise_targets(
        p.grid, tile, p.rowwise.scale, kMxfp8BlockSize, p.grid.rowwise_padding.padded_scale_cols);
#pragma unroll
    for (int i = 0; i < detail::kLoadsPerThread; ++i)
      quantize_rowwise_vector(p, tile, targets, i, vectors[i]);
  }
  if constexpr (kColumnwise) {
    __syncthreads();
    quantize_columnwise_slice(p, tile, staged);
  }
}

template <bool kRowwise, bool kColumnwise>
__global__ void __launch_bounds__(kTileThreads, 6) mxfp8_quantize_kernel(const Mxfp8Params p) {
  __shared__ __align__(16) uint32_t staged[kColumnwise ? kTileRows : 1][kStagedWords];
  if (detail::handled_as_padding_cta(p.grid))
    return;
  quantize_tile<kRowwise, kColumnwise>(p, detail::tile_position(p.grid), staged);
}

// Every group at once (detail/grouped_tiles.cuh): a CTA per tile, as above.
template <bool kRowwise, bool kColumnwise>
__global__ void __launch_bounds__(kTileThreads, 6)
    mxfp8_grouped_quantize_kernel(const detail::GroupedLaunch<Mxfp8Params> launch) {
  __shared__ __align__(16) uint32_t staged[kColumnwise ? kTileRows : 1][kStagedWords];
  if (detail::handled_as_grouped_padding_cta(launch))
    return;
  const detail::GroupedTile at = detail::grouped_tile_of_cta(launch);
  const Mxfp8Params& p = launch.params[at.group];
  quantize_tile<kRowwise, kColumnwise>(p, detail::tile_in_group(p.grid, at.tile), staged);
}

// The parameters of one tensor's launch; throws std::invalid_argument as quantize_mxfp8 does.
Mxfp8Params mxfp8_params(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                         OperandCopies copies, const Mxfp8CopyBuffers& rowwise,
                         const Mxfp8CopyBuffers& columnwise) {
  require_block_scaled_shape("MXFP8", rows, cols, kMxfp8BlockSize, copies);
  detail::require_device_pointer(input, 16, "MXFP8 quantize: input");
  Mxfp8Params p{};
  detail::take_copy_buffers(copies, rowwise, columnwise, 16, "MXFP8 quantize", p.rowwise,
                            p.columnwise);
  p.grid = detail::make_tile_grid(input, rows, cols, kMxfp8BlockSize, copies, p.rowwise.scale,
                                  p.columnwise.scale, "MXFP8 quantize");
  return p;
}

}  // namespace

void quantize_mxfp8(const __nv_bfloat16* input, int64_t rows, int64_t cols, OperandCopies copies,
                    const Mxfp8CopyBuffers& rowwise, const Mxfp8CopyBuffers& columnwise,
                    cudaStream_t stream) {
  const Mxfp8Params p = mxfp8_params(input, rows, cols, copies, rowwise, columnwise);
  detail::with_copies(copies, [&](auto rowwise_copy, auto columnwise_copy) {
    mxfp8_quantize_kernel<decltype(rowwise_copy)::value, decltype(columnwise_copy)::value>
        <<<p.grid.ctas, kTileThreads, 0, stream>>>(p);
  });
  CUDA_CHECK_LAUNCH();
}

Mxfp8GroupedQuantize::Mxfp8GroupedQuantize(const __nv_bfloat16* input,
                                           const Mxfp8GroupedLayout& layout,
                                           const Mxfp8CopyBuffers& rowwise,
                                           const Mxfp8CopyBuffers& columnwise)
    : copies_(layout.copies()), rows_(layout.rows()), cols_(layout.cols()) {
  detail::require_device_pointer(input, 16, "MXFP8 grouped quantize: input");
  std::vector<Mxfp8Params> params;
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    const GroupPlacement& at = layout.placement(g);
    if (at.rows > 0) {
      params.push_back(
          mxfp8_params(input + at.first_row * cols_, at.rows, cols_, copies_,
                       detail::group_buffers(rowwise, at.data, at.rowwise_scale),
                       detail::group_buffers(columnwise, at.data, at.columnwise_scale)));
    }
  }
  tables_ = detail::make_grouped_tile_tables(params, rows_, cols_, "MXFP8 grouped quantize");
}

void Mxfp8GroupedQuantize::upload(void* workspace, cudaStream_t stream) {
  tables_.tables.upload(workspace, stream, "MXFP8 grouped quantize");
}

void Mxfp8GroupedQuantize::quantize(cudaStream_t stream) const {
  if (tables_.groups == 0)
    return;
  const auto launch =
      detail::grouped_launch<Mxfp8Params>(tables_, tables_.tiles, "MXFP8 grouped quantize");
  const unsigned grid = detail::grouped_grid(launch, tables_);
  detail::with_copies(copies_, [&](auto rowwise_copy, auto columnwise_copy) {
    mxfp8_grouped_quantize_kernel<decltype(rowwise_copy)::value, decltype(columnwise_copy)::value>
        <<<grid, kTileThreads, 0, stream>>>(launch);
  });
  CUDA_CHECK_LAUNCH();
}

size_t Mxfp8GroupedQuantize::launches() const {
  return tables_.groups == 0 ? 0 : 1;
}

}  // namespace gemmscope
