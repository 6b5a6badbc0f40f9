#include "quant/format_names.h"

namespace gemmscope {

const char* to_string(ElementFormat format) {
  switch (format) {
    case ElementFormat::kBF16:
      return "BF16";
    case ElementFormat::kE4M3:
      return "E4M3";
    case ElementFormat::kE5M2:
      return "E5M2";
    case ElementFormat::kE2M1:
      return "E2M1";
  }
  return "unknown ElementFormat";
}

const char* to_string(ScaleLayout layout) {
  switch (layout) {
    case ScaleLayout::kNone:
      return "None";
    case ScaleLayout::kTensor:
      return "Tensor";
    case ScaleLayout::kVec128:
      return "Vec128";
    case ScaleLayout::kBlock128x128:
      return "Block128x128";
    case ScaleLayout::kOuterVec:
      return "OuterVec";
    case ScaleLayout::kVec32Ue8m0:
      return "Vec32Ue8m0";
    case ScaleLayout::kVec16Ue4m3:
      return "Vec16Ue4m3";
  }
  return "unknown ScaleLayout";
}

}  // namespace gemmscope
