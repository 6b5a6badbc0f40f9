#pragma once

// Whole numbers written as text in case names and the JSON context ("M:4096", "24").

#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmscope::report {

// The value of a string made only of decimal digits, or nullopt (sign, space, overflow, empty).
std::optional<int64_t> parse_non_negative(std::string_view digits);

}  // namespace gemmscope::report
