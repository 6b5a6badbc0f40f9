#include "kernels/cublaslt/emulated_gemm.h"

#include <stdexcept>

#include "quant/dequantize.h"

namespace gemmscope {
namespace {

// The BF16 stand-in of a block-scaled operand: same shape, still K-major, and the same
// per-tensor factor for alpha.
GemmOperand bf16_stand_in(const GemmOperand& quantized, const __nv_bfloat16* data) {
  if (!quantized.k_major) {
    throw std::invalid_argument("EmulatedGemm: block-scaled operands are K-major (TN)");
  }
  GemmOperand operand;
  operand.k_major = true;
  operand.tensor.data = data;
  operand.tensor.format = ElementFormat::kBF16;
  operand.tensor.rows = quantized.tensor.rows;
  operand.tensor.cols = quantized.tensor.cols;
  operand.tensor.tensor_scale = quantized.tensor.tensor_scale;
  return operand;
}

size_t element_count(const GemmOperand& operand) {
  return static_cast<size_t>(operand.tensor.rows) * static_cast<size_t>(operand.tensor.cols);
}

}  // namespace

EmulatedGemm::EmulatedGemm(const CublasLtContext& context, const GemmProblem& quantized,
                           AlgorithmChoice choice, cudaStream_t stream)
    : quantized_(quantized),
      left_(element_count(quantized.left)),
      right_(element_count(quantized.right)) {
  GemmProblem bf16;
  bf16.left = bf16_stand_in(quantized.left, left_.get());
  bf16.right = bf16_stand_in(quantized.right, right_.get());
  bf16.output = quantized.output;
  dequantize_operands(stream);  // the plan may run the GEMM while choosing an algorithm
  plan_ = std::make_unique<GemmPlan>(context, bf16, choice, stream);
}

void EmulatedGemm::dequantize_operands(cudaStream_t stream) const {
  dequantize_to_bf16(quantized_.left.tensor, left_.get(), stream);
  dequantize_to_bf16(quantized_.right.tensor, right_.get(), stream);
}

void EmulatedGemm::run(cudaStream_t stream) const {
  dequantize_operands(stream);
  plan_->run(stream);
}

std::string EmulatedGemm::algorithm() const {
  return "emulated (dequantize to BF16, then " + plan_->algorithm() + ")";
}

}  // namespace gemmscope
