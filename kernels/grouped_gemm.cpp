#include "kernels/grouped_gemm.h"

namespace gemmscope {

const char* grouped_implementation_name(GroupedImplementation implementation) {
  switch (implementation) {
    case GroupedImplementation::kLoop:
      return "loop";
    case GroupedImplementation::kCublas:
      return "cublas";
    case GroupedImplementation::kCutlass:
      return "cutlass";
  }
  return "?";
}

std::optional<GroupedImplementation> parse_grouped_implementation(std::string_view token) {
  for (GroupedImplementation implementation : kGroupedImplementations) {
    if (token == grouped_implementation_name(implementation))
      return implementation;
  }
  return std::nullopt;
}

}  // namespace gemmscope
