#include "quant/fp8/detail/line_amax.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"
#include "quant/detail/dependent_launch.cuh"
#include "quant/detail/launch_checks.h"
#include "quant/fp8/detail/line_amax.cuh"
#include "quant/fp8/scale_layout.h"

namespace gemmscope::detail {
namespace {

// Bands of 128 rows where rows are wanted (the row partials a thread keeps across its tiles fit
// its registers); of 256 for columns alone, one column atomic per 256 elements.
constexpr int kRowsBandRows = 128;
constexpr int kColumnsBandRows = 256;

template <bool kAligned, bool kRows>
__global__ void __launch_bounds__(kLineAmaxThreads, kLineAmaxMinBlocks)
    line_amax_kernel(const uint16_t* __restrict__ input, int64_t rows, int64_t cols,
                     unsigned int col_tiles, unsigned int tiles_per_block, uint32_t* row_amax_bits,
                     uint32_t* col_amax_bits) {
  constexpr int kBandRows = kRows ? kRowsBandRows : kColumnsBandRows;
  __shared__ LineAmaxShared merge;
  const unsigned int groups = (col_tiles + tiles_per_block - 1) / tiles_per_block;
  const unsigned int first_tile = blockIdx.x % groups * tiles_per_block;
  line_amax_block<kAligned, kBandRows, kRows>(
      input, rows, cols, static_cast<int64_t>(blockIdx.x / groups) * kBandRows, first_tile,
      min(first_tile + tiles_per_block, col_tiles), row_amax_bits, col_amax_bits, merge);
}

template <bool kRows>
void launch_bands(const uint16_t* input, int64_t rows, int64_t cols, uint32_t* row_amax_bits,
                  uint32_t* col_amax_bits, cudaStream_t stream) {
  constexpr int kBandRows = kRows ? kRowsBandRows : kColumnsBandRows;
  const int64_t col_tiles = ceil_div(cols, kLineAmaxCols);
  const unsigned int tiles_per_block = line_amax_tiles_per_block(col_tiles, kRows);
  const unsigned int blocks =
      checked_grid(ceil_div(rows, kBandRows) * ceil_div(col_tiles, tiles_per_block), rows, cols,
                   "FP8 rowwise amax");
  const bool aligned = cols % 8 == 0 && reinterpret_cast<uintptr_t>(input) % 16 == 0;
  launch_dependent(aligned ? line_amax_kernel<true, kRows> : line_amax_kernel<false, kRows>, blocks,
                   kLineAmaxThreads, stream, input, rows, cols,
                   static_cast<unsigned int>(col_tiles), tiles_per_block, row_amax_bits,
                   col_amax_bits);
}

constexpr int kZeroThreads = 256;
constexpr int64_t kMaxZeroBlocks = 1024;

// Lets the pass launched after it start at once (it waits for this kernel before its first
// atomic, line_amax_block), then zeroes.
__global__ void __launch_bounds__(kZeroThreads) zero_amax_kernel(uint32_t* bits, int64_t count) {
  allow_dependent_launch();
  for (int64_t i = blockIdx.x * int64_t{kZeroThreads} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * kZeroThreads) {
    bits[i] = 0;
  }
}

constexpr int kFoldThreads = 256;

__global__ void __launch_bounds__(kFoldThreads)
    fold_column_amax_kernel(uint32_t* col_amax_bits, int64_t cols) {
  __shared__ uint32_t warp_max[kFoldThreads / 32];
  uint32_t* run = col_amax_bits + static_cast<int64_t>(blockIdx.x) * cols;
  uint32_t bits = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kFoldThreads)
    bits = max(bits, run[c]);
  bits = __reduce_max_sync(0xffffffffu, bits);
  if (threadIdx.x % 32 == 0)
    warp_max[threadIdx.x / 32] = bits;
  __syncthreads();
  for (int w = 0; w < kFoldThreads / 32; ++w)
    bits = max(bits, warp_max[w]);
  for (int64_t c = threadIdx.x; c < cols; c += kFoldThreads)
    run[c] = bits;
}

}  // namespace

void launch_zero_line_amax(uint32_t* amax_bits, int64_t count, cudaStream_t stream) {
  const int64_t blocks = std::min(ceil_div(count, int64_t{kZeroThreads}), kMaxZeroBlocks);
  if (blocks == 0)
    return;
  zero_amax_kernel<<<static_cast<unsigned int>(blocks), kZeroThreads, 0, stream>>>(amax_bits,
                                                                                   count);
  CUDA_CHECK_LAUNCH();
}

void launch_fold_column_amax(uint32_t* col_amax_bits, int64_t groups, int64_t cols,
                             cudaStream_t stream) {
  if (groups > INT_MAX) {
    throw std::invalid_argument("FP8 rowwise amax: " + std::to_string(groups) +
                                " groups need more blocks than one launch takes");
  }
  fold_column_amax_kernel<<<static_cast<unsigned int>(groups), kFoldThreads, 0, stream>>>(
      col_amax_bits, cols);
  CUDA_CHECK_LAUNCH();
}

void launch_line_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                      uint32_t* row_amax_bits, uint32_t* col_amax_bits, cudaStream_t stream) {
  const auto* elements = reinterpret_cast<const uint16_t*>(input);
  if (row_amax_bits != nullptr) {
    launch_bands<true>(elements, rows, cols, row_amax_bits, col_amax_bits, stream);
  } else {
    launch_bands<false>(elements, rows, cols, row_amax_bits, col_amax_bits, stream);
  }
}

}  // namespace gemmscope::detail
