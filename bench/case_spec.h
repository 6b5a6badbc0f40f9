#pragma once
// One benchmark case before it has a precision: a GEMM of the workload in a timing mode, and
// the stable name that --benchmark_filter, compare.py and the NVTX range all use.

#include <string>

#include "shapes/case_mode.h"
#include "shapes/layer_gemms.h"

namespace gemmscope {

struct CaseSpec {
  LayerGemm gemm;  // pass, op, linear-layer dims and the launched M, K, N
  Mode mode = Mode::kNative;
};

// {precision}/{Pass}/{op}/{mode}/M:{m}/K:{k}/N:{n}, with /G:{groups} before M: for a grouped
// (expert) GEMM; Google Benchmark appends /manual_time.
std::string case_name(const std::string& precision, const CaseSpec& spec);

}  // namespace gemmscope
