#include "bench/case_spec.h"

namespace gemmscope {

std::string case_name(const std::string& precision, const CaseSpec& spec) {
  const GemmShape& s = spec.gemm.shape;
  // A grouped GEMM's group count goes before the sizes, so that every filter and parser of
  // {Precision}/{Pass}/{op}/{mode} keeps working.
  const std::string groups =
      spec.gemm.grouped() ? "/G:" + std::to_string(spec.gemm.group_rows.size()) : "";
  return precision + "/" + pass_name(spec.gemm.pass) + "/" + spec.gemm.op + "/" +
         mode_name(spec.mode) + groups + "/M:" + std::to_string(s.m) + "/K:" + std::to_string(s.k) +
         "/N:" + std::to_string(s.n);
}

}  // namespace gemmscope
