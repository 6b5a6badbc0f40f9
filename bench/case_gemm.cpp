#include "bench/case_gemm.h"

#include "quant/unsupported.h"

namespace gemmscope {
namespace {

std::unique_ptr<GroupedGemm> make_with(GroupedImplementation implementation,
                                       const RecipeContext& context,
                                       const std::vector<GemmProblem>& problems, bool emulate) {
  if (emulate && implementation != GroupedImplementation::kLoop) {
    throw Unsupported(
        "this GPU has no tensor cores for the recipe; only the loop runs its "
        "emulation");
  }
  switch (implementation) {
    case GroupedImplementation::kLoop:
      return make_loop_grouped_gemm(context.cublas, problems, context.algorithm, emulate,
                                    context.stream);
    case GroupedImplementation::kCublas:
      return make_cublas_grouped_gemm(problems, context.stream);
    case GroupedImplementation::kCutlass:
      return make_cutlass_grouped_gemm(problems, context.stream);
  }
  throw std::logic_error("unknown grouped GEMM implementation");
}

}  // namespace

std::string CaseGemm::label() const {
  return refused.empty() ? gemm->algorithm() : gemm->algorithm() + " [refused: " + refused + "]";
}

CaseGemm make_case_gemm(const RecipeContext& context, const std::vector<GemmProblem>& problems,
                        bool grouped, bool emulate) {
  if (!grouped)
    return {make_with(GroupedImplementation::kLoop, context, problems, emulate), ""};
  CaseGemm chosen;
  for (const GroupedImplementation implementation : context.grouped) {
    try {
      chosen.gemm = make_with(implementation, context, problems, emulate);
      return chosen;
    } catch (const Unsupported& e) {
      chosen.refused += std::string(chosen.refused.empty() ? "" : "; ") +
                        grouped_implementation_name(implementation) + ": " + e.what();
    }
  }
  throw Unsupported("no --grouped implementation runs these groups (" + chosen.refused + ")");
}

}  // namespace gemmscope
