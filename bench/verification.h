#pragma once
// --verify: before a case is timed, its GEMM runs once into a poisoned (NaN-filled) output
// and is compared with the reference GEMM (kernels/reference/gemm.h); a grouped GEMM group by
// group, each expert's output against its own reference, the worst group counting:
//  - rel_err:    against the reference product of the very operands it read, dequantized.
//                This proves the implementation (layouts, scales, algorithm); it must be
//                within the recipe's tolerance, or the case fails.
//  - recipe_err: against the reference product of the original BF16 inputs: what the
//                recipe's quantization costs in accuracy. Reported, never judged.

#include <cuda_runtime.h>

#include <optional>
#include <string>

namespace gemmscope {

class GemmCase;

struct Verification {
  double rel_err = 0;                // the largest over the groups
  std::optional<double> recipe_err;  // absent when the GEMM reads the original inputs (BF16)
  double tolerance = 0;
  int64_t groups = 1;
  int64_t worst_group = 0;                              // the group rel_err comes from
  bool passed() const { return rel_err <= tolerance; }  // false for NaN too
  std::string failure_message() const;
};

// Runs the case's enqueue() once and synchronises: call outside timed regions.
Verification verify_case(GemmCase& gemm_case, cudaStream_t stream);

}  // namespace gemmscope
