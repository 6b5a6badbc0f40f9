#include "quant/fp8/detail/argument_checks.h"

#include <stdexcept>
#include <string>

namespace gemmscope::detail {

void require_positive(const char* function, const char* name, int64_t value) {
  if (value <= 0) {
    throw std::invalid_argument(std::string(function) + ": " + name + " must be positive, got " +
                                std::to_string(value));
  }
}

void require_not_null(const char* function, const char* name, const void* pointer) {
  if (pointer == nullptr) {
    throw std::invalid_argument(std::string(function) + ": " + name + " is null");
  }
}

void require_some_copy(const char* function, const void* rowwise, const void* columnwise) {
  if (rowwise == nullptr && columnwise == nullptr) {
    throw std::invalid_argument(std::string(function) +
                                ": both the rowwise and the columnwise output are null; "
                                "request at least one copy");
  }
}

}  // namespace gemmscope::detail
