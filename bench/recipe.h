#pragma once
// A precision's recipe: which modes it is timed in, whether this GPU can run it, and how it
// turns one case into work. Adding a precision to gemmscope means adding a Recipe to
// all_recipes() (bench/recipes/recipes.cpp); the registration loop does not change.

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/case_spec.h"
#include "bench/device_info.h"
#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "bench/timed_work.h"
#include "bench/verification.h"
#include "kernels/cublaslt_context.h"
#include "kernels/gemm_plan.h"

namespace gemmscope {

// One prepared GEMM case. A recipe supplies the work and the GEMM's operands; verification
// and the counters (TFLOPS, M, K, N, rel_err, recipe_err) are the same for every recipe.
class GemmCase : public TimedWork {
 public:
  explicit GemmCase(const GemmShape& shape) : shape_(shape) {}

  // The GEMM as enqueue() runs it, its operands the exact (quantized) copies it reads.
  virtual GemmProblem gemm_problem() const = 0;
  // The same product on the original BF16 inputs: what the recipe approximates.
  virtual GemmProblem original_problem() const = 0;
  // Largest acceptable relative error of the GEMM against the reference GEMM of its own
  // (dequantized) operands: output rounding and accumulation order, nothing else.
  virtual double tolerance() const = 0;
  // The chosen algorithm, and anything unusual.
  std::string label() const override = 0;
  // Whether the GEMM is emulated (kernels/emulated_gemm.h) rather than run natively.
  virtual bool emulated() const { return false; }

  std::string verify(cudaStream_t stream) final;
  void report(benchmark::UserCounters& counters, double seconds_per_iteration,
              const RunMeasurements& run) const final;

 private:
  GemmShape shape_;
  std::optional<Verification> verification_;
};

struct RecipeContext {
  const DeviceInfo& device;
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
  // skip message of each of its GEMM cases.
  virtual std::string unsupported_reason(const DeviceInfo& device) const = 0;
  // Throws Unsupported when this case cannot run here (e.g. a shape the format cannot take).
  virtual std::unique_ptr<GemmCase> prepare(const CaseSpec& spec,
                                            const RecipeContext& context) const = 0;

  // Whether the recipe quantizes, and so has quantization cases of its own.
  virtual bool quantizes() const { return false; }
  // The recipe's quantization of one tensor (allocates its buffers). Only called when
  // quantizes(). Throws Unsupported for a shape the format cannot take.
  virtual std::unique_ptr<OperandQuantizer> make_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const;
};

struct RecipeSettings {
  // Run MXFP8 and NVFP4 GEMMs on GPUs without their tensor cores through the exact emulated
  // GEMM (kernels/emulated_gemm.h), instead of skipping them.
  bool emulate = false;
};

// Every implemented recipe, in report order.
std::vector<std::unique_ptr<Recipe>> all_recipes(const RecipeSettings& settings = {});

}  // namespace gemmscope
