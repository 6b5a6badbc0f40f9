#pragma once

// The report as one long CSV table (one value per row) for spreadsheets and scripts:
//   mode,quantity,pass,op,M,K,N,precision,value,note,G,layers,implementation
// quantity: op_ms, pass_ms, layer_ms, model_ms, speedup_vs_bf16, model_pass_ms, and for a model
//           whose layers differ in kind dense_layer_ms and moe_layer_ms (model runs);
//           gemm_ms, gemm_tflops, gemm_speedup_vs_bf16 (--shapes runs).
// value is empty where the report says n/a, and note then says why ("emulated" marks values
// that include an emulated GEMM). G is a grouped GEMM's groups (op_ms rows); layers is how many
// of the model's layers hold the op (op_ms) or are of the kind (dense_layer_ms, moe_layer_ms),
// where known. implementation is what ran the GEMMs a value comes from (case_implementation.h):
// cublaslt, loop, cublas, cutlass or unknown for an op_ms or gemm_* row, all of them joined by
// '+' for a total ("cublaslt+cutlass"), empty where the value is n/a. G and layers came with
// mixture-of-experts runs, implementation after them: readers of the first ten or twelve
// columns keep working.

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

std::string format_csv(const Report& report);

}  // namespace gemmscope::report
