#include "bench/operand_source.h"

namespace gemmscope {

const char* role_token(TensorRole role) {
  switch (role) {
    case TensorRole::kActivation:
      return "x";
    case TensorRole::kWeight:
      return "w";
    case TensorRole::kGradient:
      return "dy";
  }
  return "unknown";
}

}  // namespace gemmscope
