#include "tools/report/case_implementation.h"

namespace gemmscope::report {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

Implementation case_implementation(std::string_view label) {
  if (starts_with(label, "cuBLASLt ") || starts_with(label, "algo "))
    return Implementation::kCublasLt;
  if (starts_with(label, "loop of "))
    return Implementation::kLoop;
  if (starts_with(label, "cuBLAS grouped "))
    return Implementation::kCublas;
  if (starts_with(label, "CUTLASS "))
    return Implementation::kCutlass;
  if (starts_with(label, "DeepGEMM "))
    return Implementation::kDeepGemm;
  // An emulation dequantizes, then runs a BF16 GEMM whose algorithm string follows "then ".
  constexpr std::string_view kEmulated = "emulated (dequantize to BF16, then ";
  if (starts_with(label, kEmulated))
    return case_implementation(label.substr(kEmulated.size()));
  return Implementation::kUnknown;
}

std::string_view implementation_name(Implementation implementation) {
  switch (implementation) {
    case Implementation::kCublasLt:
      return "cublaslt";
    case Implementation::kLoop:
      return "loop";
    case Implementation::kCublas:
      return "cublas";
    case Implementation::kCutlass:
      return "cutlass";
    case Implementation::kDeepGemm:
      return "deepgemm";
    case Implementation::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string implementations_text(const Implementations& implementations) {
  std::string text;
  for (Implementation implementation : implementations)
    text += (text.empty() ? "" : "+") + std::string(implementation_name(implementation));
  return text;
}

}  // namespace gemmscope::report
