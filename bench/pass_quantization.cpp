#include "bench/pass_quantization.h"

#include <stdexcept>
#include <string>

namespace gemmscope {
namespace {

struct GemmRead {
  Pass pass;
  TensorRole role;
  OperandCopies copy;
};

// Every operand a layer's GEMMs read, in the order of a training step (bench/recipes/
// quantized_recipe.h): each pass's left operand, then its right.
constexpr GemmRead kReads[] = {
    {Pass::kFprop, TensorRole::kActivation, OperandCopies::kRowwise},
    {Pass::kFprop, TensorRole::kWeight, OperandCopies::kRowwise},
    {Pass::kDgrad, TensorRole::kGradient, OperandCopies::kRowwise},
    {Pass::kDgrad, TensorRole::kWeight, OperandCopies::kColumnwise},
    {Pass::kWgrad, TensorRole::kGradient, OperandCopies::kColumnwise},
    {Pass::kWgrad, TensorRole::kActivation, OperandCopies::kColumnwise},
};

// The first pass of the step that reads `role`'s tensor quantized (its reads are in step order).
std::optional<Pass> first_quantized_reader(TensorRole role, const QuantizedPasses& quantized) {
  for (const GemmRead& read : kReads) {
    if (read.role == role && quantized.has(read.pass))
      return read.pass;
  }
  return std::nullopt;
}

}  // namespace

bool QuantizedPasses::has(Pass pass) const {
  switch (pass) {
    case Pass::kFprop:
      return fprop;
    case Pass::kDgrad:
      return dgrad;
    case Pass::kWgrad:
      return wgrad;
  }
  return false;
}

std::optional<OperandCopies> copies_read(TensorRole role, const QuantizedPasses& quantized) {
  bool rowwise = false;
  bool columnwise = false;
  for (const GemmRead& read : kReads) {
    if (read.role == role && quantized.has(read.pass))
      (read.copy == OperandCopies::kRowwise ? rowwise : columnwise) = true;
  }
  if (rowwise && columnwise)
    return OperandCopies::kBoth;
  if (rowwise || columnwise)
    return rowwise ? OperandCopies::kRowwise : OperandCopies::kColumnwise;
  return std::nullopt;
}

PassOperands pass_operands(Pass pass, Mode mode, const QuantizedPasses& quantized,
                           StepCasts step_casts) {
  if (mode == Mode::kNative)
    throw std::invalid_argument("pass_operands: BF16's native mode quantizes nothing");
  if (!quantized.has(pass)) {
    throw std::invalid_argument(std::string("pass_operands: the recipe runs ") + pass_name(pass) +
                                " in BF16, on unquantized inputs");
  }
  const auto operand = [&](const GemmRead& read) {
    OperandUse use;
    use.role = read.role;
    use.reads = read.copy;
    use.writes = read.copy;
    const bool at_each_gemm =
        mode == Mode::kAutocast || (mode == Mode::kStep && step_casts == StepCasts::kAtEachGemm);
    if (at_each_gemm) {  // into the copy this GEMM reads, every call
      use.timed = true;
    } else if (mode == Mode::kStep && first_quantized_reader(read.role, quantized) == pass) {
      // Where the step first reads the tensor: into every copy its quantized passes read.
      use.timed = true;
      use.writes = *copies_read(read.role, quantized);
      use.once_per_microbatches = read.role == TensorRole::kWeight;
    }
    return use;
  };
  PassOperands operands;
  bool left = true;
  for (const GemmRead& read : kReads) {
    if (read.pass != pass)
      continue;
    (left ? operands.left : operands.right) = operand(read);
    left = false;
  }
  return operands;
}

}  // namespace gemmscope
