#pragma once
// What makes a list of GemmProblems one grouped GEMM (kernels/grouped_gemm.h): every
// implementation checks the same rules before planning, so that a caller's mistake is reported
// the same way whichever --grouped implementation it reaches.

#include <vector>

#include "kernels/gemm_problem.h"

namespace gemmscope {

// Throws std::invalid_argument, prefixed with `implementation` and naming the group, unless
// - there is at least one group;
// - every group has both operands' data, positive sizes, equal contraction sizes and an output;
// - every group has group 0's element formats, scale layouts, per-tensor factors (present or
//   not), K-major-ness and fast_accumulation;
// - every group has group 0's output width Q, and either every group has group 0's contraction
//   K (Fprop, Dgrad: the rows P vary) or every group has group 0's P (Wgrad: K varies).
void check_grouped_problems(const std::vector<GemmProblem>& groups, const char* implementation);

}  // namespace gemmscope
