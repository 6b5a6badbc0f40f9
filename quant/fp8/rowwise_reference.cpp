#include "quant/fp8/rowwise_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/host_matrix.h"

namespace gemmscope {
namespace {

// Each of `rows` lines of `cols` quantized with its own scale: data [rows, cols], scale_inv [rows].
void quantize_lines(const std::vector<float>& matrix, int64_t rows, int64_t cols, uint8_t* data,
                    float* scale_inv) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* line = matrix.data() + r * cols;
    float amax = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
      if (!std::isnan(line[c]))
        amax = std::max(amax, std::fabs(line[c]));
    }
    const float scale = scale_from_amax(amax, kE4M3MaxFinite, /*power_of_2=*/true);
    scale_inv[r] = scale_inverse(scale);
    for (int64_t c = 0; c < cols; ++c)
      data[r * cols + c] = fp8_encode(line[c] * scale, ElementFormat::kE4M3);
  }
}

}  // namespace

void reference_quantize_fp8_rowwise(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                    float* columnwise_scale_inv) {
  const std::vector<float> matrix =
      widen_bf16(std::vector<__nv_bfloat16>(input, input + rows * cols));
  if (rowwise != nullptr)
    quantize_lines(matrix, rows, cols, rowwise, rowwise_scale_inv);
  if (columnwise != nullptr)
    quantize_lines(transposed(matrix, rows, cols), cols, rows, columnwise, columnwise_scale_inv);
}

}  // namespace gemmscope
