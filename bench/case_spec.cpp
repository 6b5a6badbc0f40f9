#include "bench/case_spec.h"

namespace gemmscope {

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kNative:
      return "native";
    case Mode::kAutocast:
      return "autocast";
    case Mode::kPrequant:
      return "prequant";
  }
  return "unknown";
}

std::string case_name(const std::string& precision, const CaseSpec& spec) {
  const GemmShape& s = spec.gemm.shape;
  return precision + "/" + pass_name(spec.gemm.pass) + "/" + spec.gemm.op + "/" +
         mode_name(spec.mode) + "/M:" + std::to_string(s.m) + "/K:" + std::to_string(s.k) +
         "/N:" + std::to_string(s.n);
}

}  // namespace gemmscope
