#pragma once
// Host-side checks of the device pointers a quantize or dequantize call receives: they are
// read and written with vector instructions, so each must be present and aligned.

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

}  // namespace gemmscope::detail
