#pragma once
// A precision's recipe: which modes it is timed in, whether this GPU can run it, and how it
// turns one case into work. Adding a precision to gemmscope means adding a Recipe to
// all_recipes() (bench/recipes/recipe.cpp); the registration loop does not change.

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/case_spec.h"
#include "bench/device_info.h"
#include "bench/gemm_case.h"
#include "bench/implementation_list.h"
#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "bench/pass_quantization.h"
#include "kernels/cublaslt/context.h"
#include "kernels/cublaslt/gemm_plan.h"
#include "kernels/gemm_provider.h"

namespace gemmscope {

struct RecipeContext {
  const DeviceInfo& device;
  const CublasLtContext& cublas;
  AlgorithmChoice algorithm;
  cudaStream_t stream;
  // --grouped and --provider: who may run a grouped (expert) and a dense GEMM case
  // (bench/gemm_choice.h).
  ImplementationList grouped = {};
  ImplementationList provider = {};
  // --microbatches: the microbatches of an optimizer step, over which a step case's weight
  // quantization is spread (bench/pass_quantization.h).
  int microbatches = 1;
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
  // The passes whose GEMMs read quantized copies: every pass of a quantizing recipe unless it
  // keeps one in BF16; none of BF16's.
  virtual QuantizedPasses quantized_passes() const {
    return quantizes() ? QuantizedPasses{} : QuantizedPasses::none();
  }
  // Where the recipe's trainer quantizes in a step (bench/pass_quantization.h): once a tensor
  // into saved copies, as TransformerEngine does, unless the recipe says otherwise.
  virtual StepCasts step_casts() const { return StepCasts::kSavedCopies; }
  // Whether the recipe has a quantization case of `role`'s tensor into `copies`: by default each
  // layout whose copies its quantized passes read (bench/quantize_case.h).
  virtual bool lists_quantization(TensorRole role, OperandCopies copies) const;
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
