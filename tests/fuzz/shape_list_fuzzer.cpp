// Fuzzes the --shapes parser: any text is either refused with std::invalid_argument or parsed
// into shapes within [1, kMaxGemmDimension] that print back to a list parsing to the same.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "shapes/shape_list.h"
#include "tests/fuzz/fuzz_check.h"

using gemmscope::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<gemmscope::GemmShape> shapes;
  try {
    shapes = gemmscope::parse_shape_list(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  check(!shapes.empty(), "an accepted list has a shape");
  std::string printed;
  for (const gemmscope::GemmShape& shape : shapes) {
    for (int64_t dim : {shape.m, shape.k, shape.n})
      check(dim >= 1 && dim <= gemmscope::kMaxGemmDimension, "dimensions are in range");
    printed += (printed.empty() ? "" : ",") + to_string(shape);
  }
  check(gemmscope::parse_shape_list(printed) == shapes, "a printed list parses back the same");
  return 0;
}
