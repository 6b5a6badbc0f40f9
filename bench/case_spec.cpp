#include "bench/case_spec.h"

namespace gemmscope {

std::string case_name(const std::string& precision, const CaseSpec& spec) {
  const GemmShape& s = spec.gemm.shape;
  return precision + "/" + pass_name(spec.gemm.pass) + "/" + spec.gemm.op + "/" +
         mode_name(spec.mode) + "/M:" + std::to_string(s.m) + "/K:" + std::to_string(s.k) +
         "/N:" + std::to_string(s.n);
}

}  // namespace gemmscope
