#pragma once

// The report as one long CSV table (one value per row) for spreadsheets and scripts:
//   mode,quantity,pass,op,M,K,N,precision,value,note
// quantity: op_ms, pass_ms, layer_ms, model_ms, speedup_vs_bf16 (model runs);
//           gemm_ms, gemm_tflops, gemm_speedup_vs_bf16 (--shapes runs).
// value is empty where the report says n/a, and note then says why ("emulated" marks values
// that include an emulated GEMM).

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

std::string format_csv(const Report& report);

}  // namespace gemmscope::report
