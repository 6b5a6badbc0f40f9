#pragma once
// The GEMM a GEMM case runs, chosen once when the case is prepared. A dense case runs one
// cuBLASLt GEMM (or its emulation); a grouped (expert) case runs the first implementation of
// --grouped that can run its groups (kernels/grouped_gemm.h), and says which ones could not.

#include <memory>
#include <string>
#include <vector>

#include "bench/recipe.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

struct CaseGemm {
  std::unique_ptr<GroupedGemm> gemm;
  // "cutlass: <reason>; ..." for the implementations tried before the one chosen; "" if none.
  std::string refused;

  // The case label: the GEMM's algorithm, then what was refused.
  std::string label() const;
};

// `emulate`: the recipe's GEMMs run emulated on this GPU (only the loop can do that).
// Throws Unsupported listing every implementation's reason when none can run the groups.
CaseGemm make_case_gemm(const RecipeContext& context, const std::vector<GemmProblem>& problems,
                        bool grouped, bool emulate);

}  // namespace gemmscope
