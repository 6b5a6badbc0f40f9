#include "shapes/positive_integer.h"

#include <charconv>
#include <system_error>

namespace gemmscope {
namespace {

PositiveIntegerParse parse_integer(std::string_view text, int64_t min_value, int64_t max_value) {
  PositiveIntegerParse result;
  if (text.empty()) {
    result.problem = "is empty";
    return result;
  }
  // A leading '-' is a sign we report as out of range; from_chars refuses '+' and spaces.
  const bool negative = text.front() == '-';
  const std::string_view digits = negative ? text.substr(1) : text;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool all_digits =
      error != std::errc::invalid_argument && end == digits.data() + digits.size();
  const char* const below_minimum = min_value > 0 ? "is not positive" : "is negative";
  if (!all_digits || digits.empty() || digits.front() == '-') {
    result.problem = "is not a decimal integer";
  } else if (negative) {
    result.problem = below_minimum;
  } else if (error == std::errc::result_out_of_range || value > max_value) {
    // Checked before the minimum: from_chars leaves `value` untouched when it overflows.
    result.problem = "exceeds the maximum " + std::to_string(max_value);
  } else if (value < min_value) {
    result.problem = below_minimum;
  } else {
    result.value = value;
  }
  return result;
}

}  // namespace

PositiveIntegerParse parse_positive_integer(std::string_view text, int64_t max_value) {
  return parse_integer(text, 1, max_value);
}

PositiveIntegerParse parse_non_negative_integer(std::string_view text, int64_t max_value) {
  return parse_integer(text, 0, max_value);
}

}  // namespace gemmscope
