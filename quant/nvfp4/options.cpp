#include "quant/nvfp4/options.h"

#include <stdexcept>
#include <string>

#include "quant/block_scaled_shape.h"
#include "quant/nvfp4/detail/scaling.h"

namespace gemmscope {

Nvfp4Options nvfp4_options_for(Nvfp4Role role) {
  Nvfp4Options options;
  switch (role) {
    case Nvfp4Role::kActivation:
      options.columnwise_hadamard = true;
      break;
    case Nvfp4Role::kWeight:
      options.block_shape = Nvfp4BlockShape::k16x16;
      break;
    case Nvfp4Role::kGradient:
      options.columnwise_hadamard = true;
      options.stochastic_rounding = true;
      break;
  }
  return options;
}

void require_nvfp4_shape(int64_t rows, int64_t cols, OperandCopies copies,
                         const Nvfp4Options& options) {
  if (options.columnwise_hadamard && options.block_shape == Nvfp4BlockShape::k16x16) {
    throw std::invalid_argument(
        "NVFP4: the random Hadamard transform applies to 1x16 blocks only; 16x16 blocks must "
        "give both copies the same scales");
  }
  if (options.columnwise_hadamard && has_columnwise(copies) && rows > 0 &&
      rows % kHadamardSize != 0) {
    throw std::invalid_argument(
        "NVFP4: the random Hadamard transform needs the columnwise copy's contraction "
        "dimension (rows) to be a multiple of 16, got " +
        std::to_string(rows));
  }
  require_block_scaled_shape("NVFP4", rows, cols, kNvfp4BlockSize, copies);
}

}  // namespace gemmscope
