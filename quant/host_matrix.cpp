#include "quant/host_matrix.h"

#include <stdexcept>
#include <string>

namespace gemmscope {

std::vector<float> widen_bf16(const std::vector<__nv_bfloat16>& values) {
  std::vector<float> widened(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    widened[i] = __bfloat162float(values[i]);
  return widened;
}

std::vector<float> transposed(const std::vector<float>& matrix, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || static_cast<size_t>(rows * cols) != matrix.size()) {
    throw std::invalid_argument("transposed: a " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " matrix cannot hold " +
                                std::to_string(matrix.size()) + " values");
  }
  std::vector<float> result(matrix.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      result[c * rows + r] = matrix[r * cols + c];
  }
  return result;
}

}  // namespace gemmscope
