#include "kernels/grouped_problems.h"

#include <stdexcept>
#include <string>

namespace gemmscope {
namespace {

std::string group_name(size_t index, size_t count) {
  return "group " + std::to_string(index) + " of " + std::to_string(count);
}

void check_operand(const GemmOperand& operand, const char* which, const std::string& where) {
  const QuantizedTensor& t = operand.tensor;
  if (t.data == nullptr || t.rows <= 0 || t.cols <= 0) {
    throw std::invalid_argument(where + ": the " + which +
                                " operand has no data or a non-positive size");
  }
}

bool same_storage(const GemmOperand& a, const GemmOperand& b) {
  return a.k_major == b.k_major && a.tensor.format == b.tensor.format &&
         a.tensor.scale_layout == b.tensor.scale_layout &&
         (a.tensor.tensor_scale == nullptr) == (b.tensor.tensor_scale == nullptr);
}

}  // namespace

void check_grouped_problems(const std::vector<GemmProblem>& groups, const char* implementation) {
  const std::string prefix = std::string(implementation) + ": ";
  if (groups.empty())
    throw std::invalid_argument(prefix + "a grouped GEMM needs at least one group");
  const GemmProblem& first = groups.front();
  bool same_contraction = true;
  bool same_rows = true;
  for (size_t i = 0; i < groups.size(); ++i) {
    const GemmProblem& g = groups[i];
    const std::string where = prefix + group_name(i, groups.size());
    check_operand(g.left, "left", where);
    check_operand(g.right, "right", where);
    if (g.output == nullptr)
      throw std::invalid_argument(where + ": no output buffer");
    if (g.left.contraction() != g.right.contraction()) {
      throw std::invalid_argument(where + ": contraction sizes differ: left " +
                                  std::to_string(g.left.contraction()) + ", right " +
                                  std::to_string(g.right.contraction()));
    }
    if (!same_storage(g.left, first.left) || !same_storage(g.right, first.right)) {
      throw std::invalid_argument(where +
                                  ": its operands' formats, scale layouts or K-major-ness differ "
                                  "from group 0's");
    }
    if (g.fast_accumulation != first.fast_accumulation)
      throw std::invalid_argument(where + ": fast_accumulation differs from group 0's");
    if (g.right.outer() != first.right.outer()) {
      throw std::invalid_argument(where + ": output width " + std::to_string(g.right.outer()) +
                                  " differs from group 0's " + std::to_string(first.right.outer()));
    }
    same_contraction = same_contraction && g.left.contraction() == first.left.contraction();
    same_rows = same_rows && g.left.outer() == first.left.outer();
  }
  if (!same_contraction && !same_rows) {
    throw std::invalid_argument(prefix +
                                "the groups vary in both rows and contraction; one grouped layer "
                                "varies the rows (Fprop, Dgrad) or the contraction (Wgrad)");
  }
}

}  // namespace gemmscope
