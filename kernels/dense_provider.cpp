#include "kernels/dense_provider.h"

namespace gemmscope {

const char* dense_provider_name(DenseProvider provider) {
  switch (provider) {
    case DenseProvider::kCublasLt:
      return "cublaslt";
    case DenseProvider::kCutlass:
      return "cutlass";
    case DenseProvider::kDeepGemm:
      return "deepgemm";
  }
  return "?";
}

std::optional<DenseProvider> parse_dense_provider(std::string_view token) {
  for (const DenseProvider provider : kDenseProviders) {
    if (token == dense_provider_name(provider))
      return provider;
  }
  return std::nullopt;
}

}  // namespace gemmscope
