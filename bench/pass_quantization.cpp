#include "bench/pass_quantization.h"

#include <stdexcept>

namespace gemmscope {
namespace {

OperandUse read_copy(TensorRole role, OperandCopies reads) {
  OperandUse use;
  use.role = role;
  use.reads = reads;
  use.writes = reads;
  return use;
}

// Quantized in the timed work: into the copy the GEMM reads (autocast) or, in a step, into
// both, the other one saved for a later pass.
OperandUse timed(OperandUse use, Mode mode) {
  use.timed = true;
  if (mode == Mode::kStep) {
    use.writes = OperandCopies::kBoth;
    use.once_per_microbatches = use.role == TensorRole::kWeight;
  }
  return use;
}

}  // namespace

PassOperands pass_operands(Pass pass, Mode mode) {
  if (mode == Mode::kNative)
    throw std::invalid_argument("pass_operands: BF16's native mode quantizes nothing");
  constexpr OperandCopies kRow = OperandCopies::kRowwise;
  constexpr OperandCopies kColumn = OperandCopies::kColumnwise;
  const OperandUse x_row = read_copy(TensorRole::kActivation, kRow);
  const OperandUse w_row = read_copy(TensorRole::kWeight, kRow);
  const OperandUse dy_row = read_copy(TensorRole::kGradient, kRow);
  const OperandUse w_column = read_copy(TensorRole::kWeight, kColumn);
  const OperandUse dy_column = read_copy(TensorRole::kGradient, kColumn);
  const OperandUse x_column = read_copy(TensorRole::kActivation, kColumn);
  const bool autocast = mode == Mode::kAutocast;
  const bool step = mode == Mode::kStep;
  switch (pass) {
    case Pass::kFprop:  // a step quantizes X and W here, for every pass
      return {autocast || step ? timed(x_row, mode) : x_row,
              autocast || step ? timed(w_row, mode) : w_row};
    case Pass::kDgrad:  // a step quantizes dY here; W's columnwise copy is Fprop's
      return {autocast || step ? timed(dy_row, mode) : dy_row,
              autocast ? timed(w_column, mode) : w_column};
    case Pass::kWgrad:  // a step reads the copies Fprop and Dgrad saved
      return {autocast ? timed(dy_column, mode) : dy_column,
              autocast ? timed(x_column, mode) : x_column};
  }
  throw std::invalid_argument("pass_operands: unknown pass");
}

}  // namespace gemmscope
