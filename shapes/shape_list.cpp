#include "shapes/shape_list.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "shapes/positive_integer.h"

namespace gemmscope {
namespace {

constexpr const char* kExpected =
    "expected MxKxN[,MxKxN...] with positive integers, e.g. "
    "--shapes=4096x4096x4096,8192x4096x8192";

std::string_view trim_blanks(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  return text;
}

[[noreturn]] void refuse(std::string_view list, size_t position, const std::string& problem) {
  throw std::invalid_argument("--shapes=" + std::string(list) + ": item " +
                              std::to_string(position) + " (counting from 0) " + problem + "; " +
                              kExpected);
}

// Splits on every separator, keeping empty parts so that "1x2x" reports an empty N.
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t at = text.find(separator); at != std::string_view::npos; at = text.find(separator)) {
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  parts.push_back(text);
  return parts;
}

GemmShape parse_item(std::string_view list, size_t position, std::string_view item) {
  if (item.empty())
    refuse(list, position, "is empty");
  const std::string quoted = "'" + std::string(item) + "'";
  if (item.find('X') != std::string_view::npos) {
    refuse(list, position, quoted + " separates with 'X'; use a lowercase 'x'");
  }
  const std::vector<std::string_view> parts = split(item, 'x');
  if (parts.size() != 3) {
    refuse(list, position,
           quoted + " has " + std::to_string(parts.size()) + " dimension" +
               (parts.size() == 1 ? "" : "s") + ", not three");
  }
  const char* const names[3] = {"M", "K", "N"};
  int64_t dims[3] = {0, 0, 0};
  for (size_t i = 0; i < 3; ++i) {
    const PositiveIntegerParse parsed = parse_positive_integer(parts[i], kMaxGemmDimension);
    if (!parsed.ok()) {
      refuse(list, position,
             quoted + ": " + names[i] + "='" + std::string(parts[i]) + "' " + parsed.problem);
    }
    dims[i] = parsed.value;
  }
  return {dims[0], dims[1], dims[2]};
}

}  // namespace

std::vector<GemmShape> parse_shape_list(std::string_view text) {
  if (trim_blanks(text).empty()) {
    throw std::invalid_argument("--shapes='" + std::string(text) + "' lists no GEMM; " + kExpected);
  }
  const std::vector<std::string_view> items = split(text, ',');
  std::vector<GemmShape> shapes;
  for (size_t position = 0; position < items.size(); ++position) {
    shapes.push_back(parse_item(text, position, trim_blanks(items[position])));
  }
  return shapes;
}

}  // namespace gemmscope
