#pragma once
// Human-readable names of the quantized-operand enums, for error messages and logs.

#include "quant/quantized_tensor.h"

namespace gemmscope {

const char* to_string(ElementFormat format);
const char* to_string(ScaleLayout layout);

}  // namespace gemmscope
