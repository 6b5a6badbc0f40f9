#pragma once
// Who runs a dense (not grouped) GEMM case, --provider: cuBLASLt, what training frameworks call
// for every dense GEMM, or, for FP8 block scaling, where the best public kernels are faster than
// cuBLASLt's, CUTLASS's Hopper kernels (kernels/cutlass/dense_gemm.h) or DeepGEMM's
// (kernels/deepgemm/dense_gemm.h).

#include <optional>
#include <string_view>

namespace gemmscope {

enum class DenseProvider {
  kCublasLt,  // one cuBLASLt matmul (kernels/cublaslt/gemm_plan.h), or its emulation
  kCutlass,   // CUTLASS sm90 kernels: FP8 1x128 x 128x128 and 1x128 x 1x128 block scaling
  kDeepGemm,  // DeepGEMM's sm90 kernel: FP8 1x128 x 128x128 block scaling
};

// "cublaslt", "cutlass", "deepgemm": the --provider tokens.
const char* dense_provider_name(DenseProvider provider);
std::optional<DenseProvider> parse_dense_provider(std::string_view token);

// Every provider, in the order --provider=auto tries them.
inline constexpr DenseProvider kDenseProviders[] = {
    DenseProvider::kCublasLt, DenseProvider::kCutlass, DenseProvider::kDeepGemm};

}  // namespace gemmscope
