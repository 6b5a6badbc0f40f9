#include "shapes/positive_integer.h"

#include <charconv>
#include <system_error>

namespace gemmscope {

PositiveIntegerParse parse_positive_integer(std::string_view text, int64_t max_value) {
  PositiveIntegerParse result;
  if (text.empty()) {
    result.problem = "is empty";
    return result;
  }
  // A leading '-' is a sign we report as "not positive"; from_chars refuses '+' and spaces.
  const bool negative = text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool all_digits =
      error != std::errc::invalid_argument && end == digits.data() + digits.size();
  if (!all_digits || digits.empty() || digits.front() == '-') {
    result.problem = "is not a decimal integer";
  } else if (negative) {
    result.problem = "is not positive";
  } else if (error == std::errc::result_out_of_range || value > max_value) {
    // Checked before zero: from_chars leaves `value` untouched when it overflows.
    result.problem = "exceeds the maximum " + std::to_string(max_value);
  } else if (value == 0) {
    result.problem = "is not positive";
  } else {
    result.value = value;
  }
  return result;
}

}  // namespace gemmscope
