#pragma once

// The report as JSON, for scripts and for comparing runs:
//   {"device": "...", "num_hidden_layers": 24,
//    "modes": {"autocast": {"per_op_ms": {"Fprop": {"qkv": {"BF16": 1.071, ...}, ...}, ...},
//                           "per_pass_ms": {"Fprop": {"BF16": 4.196, ...}, ...},
//                           "per_layer_ms": {...}, "model_ms": {...},
//                           "speedup_vs_bf16": {...}},
//              "prequant": {...}}}
// with null wherever the text report says n/a. Extra keys: "model", "tokens", "files",
// "context", "include_emulated", "quantize_cases_ignored", "unparsed_entries", "warnings",
// and per mode "emulated" (precisions with emulated GEMMs), "na_reasons" (per op cell) and,
// for --shapes runs, "per_gemm" (one object per GEMM).
// Keys that came with mixture-of-experts runs, after all of those (model runs):
// "layers_per_op" ({"qkv": 61, ...}, null when unknown) and "layers_per_kind" ({"dense": 3,
// "moe": 58} when the layers differ in kind); per mode "per_op_shape" ({"Fprop": {"expert_up":
// {"M": ..., "K": ..., "N": ..., "G": 32}, ...}}, G for grouped ops only), "model_pass_ms" and
// "model_fprop_dgrad_ms" (the whole model per pass) and "per_layer_kind_ms" ({"dense": {...},
// "moe": {...}} when the layers differ in kind, when per_pass_ms and per_layer_ms are null).
// Keys that came with the choice of GEMM implementation, after all of those: per model-run mode
// "per_op_implementation" ({"Fprop": {"qkv": {"BF16": "cublaslt", "FP8Block": "cutlass"}, ...}},
// the implementation names of case_implementation.h, null where the cell is n/a) and per
// --shapes row "implementation" ({"BF16": "cublaslt", ...}).

#include <string>

#include "tools/report/report.h"

namespace gemmscope::report {

std::string format_json(const Report& report);

}  // namespace gemmscope::report
