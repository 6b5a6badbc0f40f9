#pragma once
// Small host-side matrix helpers for the reference quantizers and their tests. Matrices are
// row-major std::vectors.

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

namespace gemmscope {

// Each BF16 value as the float it equals exactly.
std::vector<float> widen_bf16(const std::vector<__nv_bfloat16>& values);

// The [cols, rows] transpose of a [rows, cols] matrix.
std::vector<float> transposed(const std::vector<float>& matrix, int64_t rows, int64_t cols);

}  // namespace gemmscope
