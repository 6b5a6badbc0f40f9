#include "kernels/gemm_provider.h"

#include "kernels/cublas/grouped_gemm.h"
#include "kernels/cublaslt/loop_grouped_gemm.h"
#include "kernels/cutlass/dense_gemm.h"
#include "kernels/cutlass/grouped_gemm.h"
#include "kernels/deepgemm/dense_gemm.h"
#include "kernels/deepgemm/grouped_gemm.h"

namespace gemmscope {
namespace {

GemmCandidates one(std::unique_ptr<GroupedGemm> gemm) {
  GemmCandidates candidates;
  candidates.push_back(std::move(gemm));
  return candidates;
}

GemmCandidates cublaslt_loop(const GemmRequest& r) {
  return one(make_loop_grouped_gemm(r.cublas, r.problems, r.algorithm, r.emulate, r.stream));
}

}  // namespace

const std::vector<GemmProvider>& dense_providers() {
  static const std::vector<GemmProvider> providers = {
      {"cublaslt", true, cublaslt_loop},
      {"cutlass", false,
       [](const GemmRequest& r) { return make_cutlass_dense_gemms(r.problems.front(), r.stream); }},
      {"deepgemm", false,
       [](const GemmRequest& r) {
         return make_deepgemm_dense_gemms(r.problems.front(), r.stream);
       }},
  };
  return providers;
}

const std::vector<GemmProvider>& grouped_providers() {
  static const std::vector<GemmProvider> providers = {
      {"loop", true, cublaslt_loop},
      {"cublas", false,
       [](const GemmRequest& r) { return one(make_cublas_grouped_gemm(r.problems, r.stream)); }},
      {"cutlass", false,
       [](const GemmRequest& r) { return make_cutlass_grouped_gemms(r.problems, r.stream); }},
      {"deepgemm", false,
       [](const GemmRequest& r) { return make_deepgemm_grouped_gemms(r.problems, r.stream); },
       kDeepGemmGroupRowAlignment, kDeepGemmGroupedBuilt},
  };
  return providers;
}

const GemmProvider* find_provider(const std::vector<GemmProvider>& providers,
                                  std::string_view name) {
  for (const GemmProvider& provider : providers) {
    if (name == provider.name)
      return &provider;
  }
  return nullptr;
}

}  // namespace gemmscope
