#pragma once
// The GEMM that --verify and the tests trust: FP32 inputs, FP32 accumulation, one output
// element per thread, every operand addressed through explicit strides so any stored layout
// (K-major or not, transposed copies) is read in place. Simple enough to be obviously right;
// fast enough (shared-memory tiles) to check a 15872x4096x12288 GEMM in about a second.

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmscope {

// Element (i, j) of a matrix lives at data[i * row_stride + j * col_stride].
struct StridedMatrix {
  const float* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// out[i * b.cols + j] = sum_k a(i, k) * b(k, j), for i < a.rows, j < b.cols; a.cols == b.rows.
void reference_gemm(const StridedMatrix& a, const StridedMatrix& b, float* out,
                    cudaStream_t stream);

}  // namespace gemmscope
