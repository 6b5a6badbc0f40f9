#include "kernels/reference/error.h"

#include "kernels/device_buffer.h"
#include "kernels/reference/gemm.h"
#include "kernels/reference/relative_error.h"
#include "quant/dequantize.h"

namespace gemmscope {
namespace {

struct DequantizedOperand {
  DeviceBuffer<float> values;
  StridedMatrix matrix;
};

// The operand in FP32, addressed as the GEMM reads it: left as [P, K], right as [K, Q].
DequantizedOperand dequantized(const GemmOperand& operand, bool is_left, cudaStream_t stream) {
  const QuantizedTensor& t = operand.tensor;
  DequantizedOperand out{DeviceBuffer<float>(static_cast<size_t>(t.rows) * t.cols), {}};
  dequantize(t, out.values.get(), stream);
  StridedMatrix& m = out.matrix;
  m.data = out.values.get();
  // Stored row-major [rows, cols]: element (r, c) at r * cols + c.
  const bool row_index_is_stored_row = is_left == operand.k_major;
  m.rows = is_left ? operand.outer() : operand.contraction();
  m.cols = is_left ? operand.contraction() : operand.outer();
  m.row_stride = row_index_is_stored_row ? t.cols : 1;
  m.col_stride = row_index_is_stored_row ? 1 : t.cols;
  return out;
}

}  // namespace

double error_against_reference(const GemmProblem& operands, const __nv_bfloat16* output,
                               cudaStream_t stream) {
  const DequantizedOperand left = dequantized(operands.left, true, stream);
  const DequantizedOperand right = dequantized(operands.right, false, stream);
  DeviceBuffer<float> expected(static_cast<size_t>(left.matrix.rows) * right.matrix.cols);
  reference_gemm(left.matrix, right.matrix, expected.get(), stream);
  return relative_frobenius_error(output, expected.get(), expected.size(), stream);
}

}  // namespace gemmscope
