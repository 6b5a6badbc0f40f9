#include "kernels/reference/gemm.h"

#include <stdexcept>
#include <string>

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

constexpr int kTile = 16;

// Reads element (i, j) of `m`, or 0 outside it.
__device__ float load(const StridedMatrix& m, int64_t i, int64_t j) {
  return i < m.rows && j < m.cols ? m.data[i * m.row_stride + j * m.col_stride] : 0.0f;
}

// Each tile is loaded with consecutive threads walking the matrix's unit-stride dimension, so
// the loads coalesce whichever way the operand is stored.
__global__ void reference_gemm_kernel(StridedMatrix a, StridedMatrix b, float* out) {
  __shared__ float a_tile[kTile][kTile + 1];  // [row][k]; +1 avoids bank conflicts
  __shared__ float b_tile[kTile][kTile + 1];  // [k][col]
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const bool a_rows_contiguous = a.row_stride == 1 && a.col_stride != 1;
  const bool b_k_contiguous = b.row_stride == 1 && b.col_stride != 1;
  float sum = 0.0f;
  for (int64_t k0 = 0; k0 < a.cols; k0 += kTile) {
    if (a_rows_contiguous) {
      a_tile[tx][ty] = load(a, row0 + tx, k0 + ty);
    } else {
      a_tile[ty][tx] = load(a, row0 + ty, k0 + tx);
    }
    if (b_k_contiguous) {
      b_tile[tx][ty] = load(b, k0 + tx, col0 + ty);
    } else {
      b_tile[ty][tx] = load(b, k0 + ty, col0 + tx);
    }
    __syncthreads();
    for (int kk = 0; kk < kTile; ++kk)
      sum += a_tile[ty][kk] * b_tile[kk][tx];
    __syncthreads();
  }
  const int64_t row = row0 + ty;
  const int64_t col = col0 + tx;
  if (row < a.rows && col < b.cols)
    out[row * b.cols + col] = sum;
}

}  // namespace

void reference_gemm(const StridedMatrix& a, const StridedMatrix& b, float* out,
                    cudaStream_t stream) {
  if (a.cols != b.rows) {
    throw std::invalid_argument("reference_gemm: inner sizes differ (" + std::to_string(a.cols) +
                                " vs " + std::to_string(b.rows) + ")");
  }
  if (a.rows <= 0 || b.cols <= 0 || a.cols <= 0) {
    throw std::invalid_argument("reference_gemm: sizes must be positive");
  }
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((b.cols + kTile - 1) / kTile),
                  static_cast<unsigned>((a.rows + kTile - 1) / kTile));
  if (grid.y > 65535)
    throw std::invalid_argument("reference_gemm: too many rows");
  reference_gemm_kernel<<<grid, block, 0, stream>>>(a, b, out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace gemmscope
