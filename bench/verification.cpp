#include "bench/verification.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "bench/recipe.h"
#include "kernels/device_buffer.h"
#include "kernels/reference_gemm.h"
#include "kernels/relative_error.h"
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

double error_against_reference(const GemmProblem& reference_problem, const GemmProblem& run,
                               cudaStream_t stream) {
  const DequantizedOperand left = dequantized(reference_problem.left, true, stream);
  const DequantizedOperand right = dequantized(reference_problem.right, false, stream);
  DeviceBuffer<float> expected(static_cast<size_t>(left.matrix.rows) * right.matrix.cols);
  reference_gemm(left.matrix, right.matrix, expected.get(), stream);
  return relative_frobenius_error(run.output, expected.get(), expected.size(), stream);
}

// Whether error `a` is worse than `b`; NaN is the worst there is.
bool worse(double a, double b) {
  return !std::isnan(b) && (std::isnan(a) || a > b);
}

bool reads_original_inputs(const GemmProblem& run, const GemmProblem& original) {
  return run.left.tensor.data == original.left.tensor.data &&
         run.right.tensor.data == original.right.tensor.data;
}

}  // namespace

std::string Verification::failure_message() const {
  char text[320];
  std::snprintf(text, sizeof(text),
                "verification failed: rel_err %.3g above tolerance %.3g (GEMM output against the "
                "reference GEMM of the operands it read)",
                rel_err, tolerance);
  std::string message = text;
  if (groups > 1) {
    message += " in group " + std::to_string(worst_group) + " of " + std::to_string(groups);
  }
  return message;
}

Verification verify_case(GemmCase& runner, cudaStream_t stream) {
  const std::vector<GemmProblem> runs = runner.gemm_problems();
  const std::vector<GemmProblem> originals = runner.original_problems();
  if (runs.empty() || runs.size() != originals.size())
    throw std::logic_error("verify_case: a case must have one original problem per GEMM");
  // All-ones bytes are NaN in BF16: any element a GEMM fails to write poisons the error.
  for (const GemmProblem& run : runs) {
    const size_t output_count =
        static_cast<size_t>(run.left.outer()) * static_cast<size_t>(run.right.outer());
    CUDA_CHECK(cudaMemsetAsync(run.output, 0xFF, output_count * sizeof(__nv_bfloat16), stream));
  }
  runner.enqueue(stream);

  Verification result;
  result.tolerance = runner.tolerance();
  result.groups = static_cast<int64_t>(runs.size());
  for (size_t g = 0; g < runs.size(); ++g) {
    const double rel_err = error_against_reference(runs[g], runs[g], stream);
    if (g == 0 || worse(rel_err, result.rel_err)) {
      result.rel_err = rel_err;
      result.worst_group = static_cast<int64_t>(g);
    }
    if (!reads_original_inputs(runs[g], originals[g])) {
      const double recipe_err = error_against_reference(originals[g], runs[g], stream);
      if (!result.recipe_err || worse(recipe_err, *result.recipe_err))
        result.recipe_err = recipe_err;
    }
  }
  return result;
}

}  // namespace gemmscope
