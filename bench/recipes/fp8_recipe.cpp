#include "bench/recipes/fp8_recipe.h"

#include "quant/fp8/operand.h"

namespace gemmscope {

std::string Fp8Recipe::unsupported_reason(const DeviceInfo& device) const {
  if (device.cc_major * 10 + device.cc_minor < 89) {
    return "FP8 tensor cores need compute capability 8.9 or newer; this GPU is " +
           device.compute_capability();
  }
  return "";
}

void Fp8Recipe::check_gemm_operand(const QuantizedTensor& operand) const {
  require_fp8_gemm_operand(operand);
}

ElementFormat fp8_tensorwise_format(TensorRole role) {
  return role == TensorRole::kGradient ? ElementFormat::kE5M2 : ElementFormat::kE4M3;
}

}  // namespace gemmscope
