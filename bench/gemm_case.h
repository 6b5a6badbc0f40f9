#pragma once
// One prepared GEMM case, whatever its recipe: the work a recipe builds for a case
// (Recipe::prepare, bench/recipes/recipe.h), its operands for verification, and the counters
// every GEMM case reports.

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <vector>

#include "bench/timing/timed_work.h"
#include "bench/verification.h"
#include "kernels/gemm_problem.h"
#include "shapes/layer_gemms.h"

namespace gemmscope {

class GemmChoice;

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

  // Checks every candidate GEMM (bench/gemm_choice.h), leaving the first in use; the worst
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
  virtual GemmChoice& gemm_choice() = 0;
  virtual const GemmChoice& gemm_choice() const = 0;

 private:
  GemmShape shape_;
  int64_t groups_;  // 0 for a dense GEMM
  std::optional<Verification> verification_;
};

}  // namespace gemmscope
