#pragma once
// Thrown when a case cannot run here for a legitimate reason — the GPU lacks the tensor cores,
// cuBLASLt has no algorithm, the number format cannot take the shape — as opposed to a fault.
// The benchmark layer reports it as a skipped case with this message; faults fail the case.

#include <stdexcept>
#include <string>

namespace gemmscope {

class Unsupported : public std::runtime_error {
 public:
  explicit Unsupported(const std::string& reason) : std::runtime_error(reason) {}
};

}  // namespace gemmscope
