#pragma once
// Argument checks shared by the FP8 quantizer entry points; each throws std::invalid_argument
// whose message starts with `function` and names the offending value.

#include <cstdint>

namespace gemmscope::detail {

void require_positive(const char* function, const char* name, int64_t value);
void require_not_null(const char* function, const char* name, const void* pointer);
// At least one of the two output copies must be requested.
void require_some_copy(const char* function, const void* rowwise, const void* columnwise);

}  // namespace gemmscope::detail
