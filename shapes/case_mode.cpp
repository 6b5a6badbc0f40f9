#include "shapes/case_mode.h"

#include <stdexcept>
#include <string>

namespace gemmscope {

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kNative:
      return "native";
    case Mode::kStep:
      return "step";
    case Mode::kAutocast:
      return "autocast";
    case Mode::kPrequant:
      return "prequant";
  }
  throw std::invalid_argument("mode_name: unknown Mode value " +
                              std::to_string(static_cast<int>(mode)));
}

}  // namespace gemmscope
