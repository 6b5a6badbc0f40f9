#pragma once
// Strict decimal parsing shared by the model flags and the --shapes list, so that both refuse
// the same inputs ("", "12abc", " 12", "+12", "0", "-3", overflow) with the same wording.

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmscope {

struct PositiveIntegerParse {
  int64_t value = 0;
  std::string problem;  // empty when `text` is acceptable; otherwise why not, e.g. "is empty"

  bool ok() const { return problem.empty(); }
};

// Accepts only the whole of `text` as decimal digits (leading zeros allowed, no sign, no
// whitespace) with a value in [1, max_value].
PositiveIntegerParse parse_positive_integer(std::string_view text, int64_t max_value);

// The same, but 0 is accepted too: a value in [0, max_value] (for counts that may be zero, such
// as --num_shared_experts). "-0" is still refused ("is negative"): no sign is ever accepted.
PositiveIntegerParse parse_non_negative_integer(std::string_view text, int64_t max_value);

}  // namespace gemmscope
