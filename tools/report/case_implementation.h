#pragma once

// Which GEMM implementation ran a case, read from the case's label. gemm_bench chooses one per
// case (--provider for dense cases, --grouped for expert cases) and starts the label with the
// kept implementation's algorithm string, then notes in brackets ("[kept at ...; next: ...]",
// "[refused: ...]", clock and noise notes), which are not read here:
//
//   label starts with                                            implementation
//   "cuBLASLt algo 66 tile 209 stages 35 splitK 1 (heuristic)"  cublaslt
//   "algo 66 ..." (files from before the choice of provider)    cublaslt
//   "loop of 32 cuBLASLt GEMMs (algo ... for 30, ...)"          loop (one cuBLASLt GEMM per expert)
//   "cuBLAS grouped batched GEMM (cublasGemmGroupedBatchedEx"   cublas
//   "CUTLASS sm90 ..." (dense or grouped)                       cutlass
//   "DeepGEMM sm90 ..."                                         deepgemm
//   "emulated (dequantize to BF16, then algo ...)"              what follows "then " (cublaslt)
//
// Anything else is unknown: an empty label (older synthetic or foreign files, a case that failed
// before it was labelled) or one this tool does not know. Unknown is not taken for cuBLASLt: the
// report says which cases it cannot attribute rather than guess. Whether a case is emulated is a
// separate mark (CaseResult::emulated), not an implementation.

#include <set>
#include <string>
#include <string_view>

namespace gemmscope::report {

// The tokens are gemm_bench's --provider and --grouped values.
enum class Implementation { kCublasLt, kLoop, kCublas, kCutlass, kDeepGemm, kUnknown };

Implementation case_implementation(std::string_view label);

// "cublaslt", "loop", "cublas", "cutlass", "deepgemm" or "unknown".
std::string_view implementation_name(Implementation implementation);

// The implementations behind a reported value: one for a case's cell, each one a total adds up.
using Implementations = std::set<Implementation>;

// "cublaslt+cutlass": the names joined by '+' in enum order; empty for an empty set.
std::string implementations_text(const Implementations& implementations);

}  // namespace gemmscope::report
