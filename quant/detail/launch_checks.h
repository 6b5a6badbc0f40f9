#pragma once
// Host-side checks of a quantize or dequantize launch: the device pointers it receives are
// read and written with vector instructions, so each must be present and aligned; and its grid
// must fit CUDA's limit.

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gemmscope::detail {

inline void require_device_pointer(const void* pointer, size_t alignment, const std::string& what) {
  if (pointer == nullptr)
    throw std::invalid_argument(what + " is null");
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (address % alignment != 0) {
    throw std::invalid_argument(what + " must be " + std::to_string(alignment) +
                                "-byte aligned, got address " + std::to_string(address));
  }
}

// `ctas` as a grid size; throws std::invalid_argument naming the shape when it is too many.
inline unsigned checked_grid(int64_t ctas, int64_t rows, int64_t cols, const std::string& context) {
  if (ctas > INT_MAX) {
    throw std::invalid_argument(context + ": a " + std::to_string(rows) + "x" +
                                std::to_string(cols) + " tensor needs more CTAs than a grid holds");
  }
  return static_cast<unsigned>(ctas);
}

}  // namespace gemmscope::detail
