#include "quant/fp8/detail/line_amax.h"

#include <climits>
#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"

namespace gemmscope::detail {
namespace {

// One block a 128x128 tile; in the rows' pass two threads share a row (64 columns each), in the
// columns' pass two threads share a column (64 rows each).
constexpr int kTile = 128;
constexpr int kThreads = 256;
constexpr int kHalf = kTile / 2;

// |x| of a BF16 as FP32 bits, NaN as 0 (amax ignores NaN; infinities count).
__device__ __forceinline__ uint32_t magnitude_bits(uint16_t value) {
  const uint32_t magnitude = value & 0x7fffu;
  return magnitude > 0x7f80u ? 0u : magnitude << 16;
}

__global__ void __launch_bounds__(kThreads)
    line_amax_kernel(const uint16_t* __restrict__ input, int64_t rows, int64_t cols,
                     unsigned int col_tiles, uint32_t* row_amax_bits, uint32_t* col_amax_bits) {
  __shared__ uint32_t column_half[kTile];
  const int64_t row0 = static_cast<int64_t>(blockIdx.x / col_tiles) * kTile;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x % col_tiles) * kTile;
  const int thread = threadIdx.x;
  if (row_amax_bits != nullptr) {
    const int64_t row = row0 + thread / 2;
    const int64_t first = col0 + (thread % 2) * kHalf;
    uint32_t bits = 0;
    if (row < rows) {
      const uint16_t* line = input + row * cols;
      for (int64_t c = first; c < min(first + kHalf, cols); ++c)
        bits = max(bits, magnitude_bits(__ldg(line + c)));
    }
    bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, 1));
    if (thread % 2 == 0 && row < rows && bits != 0)
      atomicMax(row_amax_bits + row, bits);
  }
  if (col_amax_bits != nullptr) {
    const int64_t col = col0 + thread % kTile;
    const int64_t first = row0 + (thread / kTile) * kHalf;
    uint32_t bits = 0;
    if (col < cols) {
      for (int64_t r = first; r < min(first + kHalf, rows); ++r)
        bits = max(bits, magnitude_bits(__ldg(input + r * cols + col)));
    }
    if (thread >= kTile)
      column_half[thread - kTile] = bits;
    __syncthreads();
    if (thread < kTile && col < cols) {
      bits = max(bits, column_half[thread]);
      if (bits != 0)
        atomicMax(col_amax_bits + col, bits);
    }
  }
}

}  // namespace

void launch_line_amax(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                      uint32_t* row_amax_bits, uint32_t* col_amax_bits, cudaStream_t stream) {
  if (row_amax_bits != nullptr) {
    CUDA_CHECK(
        cudaMemsetAsync(row_amax_bits, 0, static_cast<size_t>(rows) * sizeof(uint32_t), stream));
  }
  if (col_amax_bits != nullptr) {
    CUDA_CHECK(
        cudaMemsetAsync(col_amax_bits, 0, static_cast<size_t>(cols) * sizeof(uint32_t), stream));
  }
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t col_tiles = (cols + kTile - 1) / kTile;
  if (row_tiles * col_tiles > INT_MAX) {
    throw std::invalid_argument("FP8 rowwise amax: " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " needs more tiles than one launch takes");
  }
  line_amax_kernel<<<static_cast<unsigned int>(row_tiles * col_tiles), kThreads, 0, stream>>>(
      reinterpret_cast<const uint16_t*>(input), rows, cols, static_cast<unsigned int>(col_tiles),
      row_amax_bits, col_amax_bits);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope::detail
