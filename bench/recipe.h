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
#include "bench/implementation_list.h"
#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "bench/timing/timed_work.h"
#include "bench/verification.h"
#include "kernels/cublaslt/context.h"
#include "kernels/dense_provider.h"
#include "kernels/cublaslt/gemm_plan.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

class CaseGemm;

// One prepared GEMM case: one GEMM, or a grouped GEMM of one GEMM per expert (a group). A
// recipe supplies the work and the GEMMs' operands; verification and the counters (TFLOPS, M,
// K, N, G, padded_rows, rel_err, recipe_err) are the same for every recipe.
class GemmCase : public TimedWork {
 public:
  explicit GemmCase(const LayerGemm& gemm)
      : shape_(gemm.shape), groups_(static_cast<int64_t>(gemm.group_rows.size())) {}

  // The GEMMs as enqueue() runs them, one per group, their operands the exact (quantized)
  // copies they read.
  virtual std::vector<GemmProblem> gemm_problems() const = 0;
  // The same products on the original BF16 inputs: what the recipe approximates.
  virtual std::vector<GemmProblem> original_problems() const = 0;
  // Largest acceptable relative error of a GEMM against the reference GEMM of its own
  // (dequantized) operands: output rounding and accumulation order, nothing else.
  virtual double tolerance() const = 0;
  // The chosen algorithm, and anything unusual.
  std::string label() const override = 0;
  std::string trial_times() const override;
  // Whether the GEMM is emulated (kernels/cublaslt/emulated_gemm.h) rather than run natively.
  virtual bool emulated() const { return false; }
  // Rows the GEMMs run beyond the routed ones, to pad each expert to the kernel's alignment.
  virtual int64_t padded_rows() const { return 0; }

  // Checks every candidate GEMM (bench/case_gemm.h), leaving the first in use; the worst
  // counts.
  std::string verify(cudaStream_t stream) final;
  void report(benchmark::UserCounters& counters, double seconds_per_iteration,
              const RunMeasurements& run) const final;

  // The candidate GEMMs are the alternatives timing chooses from.
  size_t alternatives() const final;
  void use_alternative(size_t index) final;
  void keep_alternative(size_t index, const std::vector<double>& seconds) final;

 protected:
  // The GEMM the case runs (a recipe's case holds one).
  virtual CaseGemm& case_gemm() = 0;
  virtual const CaseGemm& case_gemm() const = 0;

 private:
  GemmShape shape_;
  int64_t groups_;  // 0 for a dense GEMM
  std::optional<Verification> verification_;
};

struct RecipeContext {
  const DeviceInfo& device;
  const CublasLtContext& cublas;
  AlgorithmChoice algorithm;
  cudaStream_t stream;
  // --grouped and --provider: who may run a grouped (expert) and a dense GEMM case
  // (bench/case_gemm.h).
  ImplementationList<GroupedImplementation> grouped = {};
  ImplementationList<DenseProvider> provider = {};
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
  // The multiple a grouped GEMM's experts' rows are padded to (the rows are the contraction
  // dimension of Wgrad, which quantized formats need in whole blocks or aligned).
  virtual int64_t group_row_alignment() const { return 1; }

  // Whether the recipe quantizes, and so has quantization cases of its own.
  virtual bool quantizes() const { return false; }
  // The recipe's quantization of one tensor, or of every group of a grouped one (allocates its
  // buffers). Only called when quantizes(). Throws Unsupported for a shape the format cannot
  // take.
  virtual std::unique_ptr<OperandQuantizer> make_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const;
};

struct RecipeSettings {
  // Run MXFP8 and NVFP4 GEMMs on GPUs without their tensor cores through the exact emulated
  // GEMM (kernels/cublaslt/emulated_gemm.h), instead of skipping them.
  bool emulate = false;
};

// Every implemented recipe, in report order.
std::vector<std::unique_ptr<Recipe>> all_recipes(const RecipeSettings& settings = {});

}  // namespace gemmscope
