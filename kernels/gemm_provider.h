#pragma once
// A GEMM provider: a library that can run a GEMM case, named by its --provider (dense GEMMs) or
// --grouped (expert GEMMs) token, with the factory that plans its candidate GEMMs for the case.
// The two candidate lists below are every provider --provider=auto and --grouped=auto try, in
// order; each provider lives in a folder of its own (kernels/cublaslt/, kernels/cublas/,
// kernels/cutlass/, kernels/deepgemm/). Adding one is that folder and one line in a list
// (kernels/gemm_provider.cpp); docs/providers.md says how.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "kernels/cublaslt/context.h"
#include "kernels/cublaslt/gemm_plan.h"
#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

// What a case asks of a provider: its GEMMs (one per group; one for a dense case), and what
// a factory may need to plan them outside any timed region.
struct GemmRequest {
  const CublasLtContext& cublas;
  const std::vector<GemmProblem>& problems;
  AlgorithmChoice algorithm;  // how cuBLASLt picks its algorithm
  // Run the recipe's GEMMs as an exact emulation (MXFP8/NVFP4 on GPUs without their tensor
  // cores, kernels/cublaslt/emulated_gemm.h); only a provider that `emulates` is asked then.
  bool emulate;
  cudaStream_t stream;
};

using GemmCandidates = std::vector<std::unique_ptr<GroupedGemm>>;

struct GemmProvider {
  const char* name;  // the --provider or --grouped token
  // Whether it runs GemmRequest::emulate's emulation; only cuBLASLt's path does.
  bool emulates;
  // One candidate per configuration that can run the request, best first; throws Unsupported
  // (quant/base/unsupported.h) with the reason when none can on this GPU or in this build.
  GemmCandidates (*make)(const GemmRequest& request);
  // Grouped providers: the multiple each expert's rows must be (DeepGEMM's m-grouped kernel: its
  // 128-row tiles belong to one expert). A case that names the provider pads its experts' rows
  // to it; under auto the provider refuses cases whose rows are not.
  int64_t group_row_alignment = 1;
  // Grouped providers: whether it reads the stacked 1x128 row scales of FP8Block's grouped
  // operands (QuantizedTensor::stacked_scale), which a case's quantizer then writes as well, so
  // that a quantizer writes them only where a GEMM may read them. False in a build that cannot run
  // the provider.
  bool reads_stacked_row_scales = false;
};

// The dense providers, in the order --provider=auto tries them: cublaslt, cutlass, deepgemm.
const std::vector<GemmProvider>& dense_providers();
// The grouped providers, in the order --grouped=auto tries them: loop, cublas, cutlass, deepgemm.
const std::vector<GemmProvider>& grouped_providers();

// The provider of `providers` named `name`, or nullptr.
const GemmProvider* find_provider(const std::vector<GemmProvider>& providers,
                                  std::string_view name);

}  // namespace gemmscope
