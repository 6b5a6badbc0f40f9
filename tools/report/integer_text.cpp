#include "tools/report/integer_text.h"

#include <charconv>

namespace gemmscope::report {

std::optional<int64_t> parse_non_negative(std::string_view digits) {
  if (digits.empty() || digits[0] == '-' || digits[0] == '+')
    return std::nullopt;
  int64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, error] = std::from_chars(digits.data(), end, value);
  if (error != std::errc() || ptr != end)
    return std::nullopt;
  return value;
}

}  // namespace gemmscope::report
