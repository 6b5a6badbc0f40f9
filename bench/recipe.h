#pragma once
// A precision's recipe: which modes it is timed in, whether this GPU can run it, and how it
// turns one case into work. Adding a precision to gemmscope means adding a Recipe to
// all_recipes() (bench/recipes/recipes.cpp); the registration loop does not change.

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/case_spec.h"
#include "bench/device_info.h"
#include "kernels/cublaslt_context.h"
#include "kernels/gemm_plan.h"

namespace gemmscope {

// One prepared case: buffers allocated and filled, quantized copies made (prequant), GEMM
// planned. Everything here happened outside timing.
class CaseRunner {
 public:
  virtual ~CaseRunner() = default;
  // Enqueues exactly what the timed region holds: in autocast mode the quantization of the
  // operand copies this pass consumes (and per-step scale bookkeeping), then the GEMM.
  virtual void enqueue(cudaStream_t stream) = 0;
  // The GEMM as enqueue() runs it, its operands the exact (quantized) copies it reads.
  virtual GemmProblem gemm_problem() const = 0;
  // The same product on the original BF16 inputs: what the recipe approximates.
  virtual GemmProblem original_problem() const = 0;
  // Largest acceptable relative error of the GEMM against the reference GEMM of its own
  // (dequantized) operands: output rounding and accumulation order, nothing else.
  virtual double tolerance() const = 0;
  // What the case report's label says: the chosen algorithm, and anything unusual.
  virtual std::string label() const = 0;
};

struct RecipeContext {
  const CublasLtContext& cublas;
  AlgorithmChoice algorithm;
  cudaStream_t stream;
};

class Recipe {
 public:
  virtual ~Recipe() = default;
  // The precision token of case names: BF16, FP8Current, ...
  virtual std::string name() const = 0;
  virtual std::vector<Mode> modes() const = 0;
  // Empty when `device` can run this recipe's GEMMs; otherwise the reason, shown as the
  // skip message of each of its cases.
  virtual std::string unsupported_reason(const DeviceInfo& device) const = 0;
  // Throws Unsupported when this case cannot run here (e.g. a shape the format cannot take).
  virtual std::unique_ptr<CaseRunner> prepare(const CaseSpec& spec,
                                              const RecipeContext& context) const = 0;
};

// Every implemented recipe, in report order.
std::vector<std::unique_ptr<Recipe>> all_recipes();

}  // namespace gemmscope
