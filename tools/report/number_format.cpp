#include "tools/report/number_format.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace gemmscope::report {
namespace {

std::string fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

}  // namespace

std::string format_ms(double ms) {
  return fixed(ms, 3);
}
std::string format_speedup(double speedup) {
  return fixed(speedup, 2) + "x";
}
std::string format_tflops(double tflops) {
  return fixed(tflops, 1);
}
std::string format_mean(double mean) {
  return fixed(mean, 1);
}

std::string format_exact(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace gemmscope::report
