#include "bench/verification.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "bench/recipes/recipe.h"
#include "kernels/reference/error.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

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
    const double rel_err = error_against_reference(runs[g], runs[g].output, stream);
    if (g == 0 || worse(rel_err, result.rel_err)) {
      result.rel_err = rel_err;
      result.worst_group = static_cast<int64_t>(g);
    }
    if (!reads_original_inputs(runs[g], originals[g])) {
      const double recipe_err = error_against_reference(originals[g], runs[g].output, stream);
      if (!result.recipe_err || worse(recipe_err, *result.recipe_err))
        result.recipe_err = recipe_err;
    }
  }
  return result;
}

}  // namespace gemmscope
