#pragma once
// How an NVFP4 tensor is quantized. TransformerEngine's NVFP4 recipe picks the options by the
// tensor's role; nvfp4_options_for() gives those defaults.

#include <cstdint>

#include "quant/nvfp4/hadamard.h"
#include "quant/operand_copies.h"

namespace gemmscope {

enum class Nvfp4BlockShape {
  k1x16,   // one scale per 16 consecutive elements along the contraction dimension
  k16x16,  // one scale per 16x16 block, shared by both copies (weights)
};

struct Nvfp4Options {
  Nvfp4BlockShape block_shape = Nvfp4BlockShape::k1x16;
  // Random Hadamard transform of the columnwise copy along its contraction dimension, before
  // its amax and its quantization (the Wgrad operands). Not with 16x16 blocks.
  bool columnwise_hadamard = false;
  uint64_t hadamard_seed = kHadamardSignSeed;
  // Stochastic instead of round-to-nearest-even E2M1 rounding, in both copies (gradients).
  bool stochastic_rounding = false;
  uint64_t rounding_seed = 0;
};

enum class Nvfp4Role { kActivation, kWeight, kGradient };

// Activations (X): 1x16, RHT on the columnwise copy. Weights (W): 16x16, no RHT. Gradients (dY):
// 1x16, RHT on the columnwise copy, stochastic rounding.
Nvfp4Options nvfp4_options_for(Nvfp4Role role);

// Throws std::invalid_argument for the shapes and option combinations NVFP4 cannot take.
void require_nvfp4_shape(int64_t rows, int64_t cols, OperandCopies copies,
                         const Nvfp4Options& options);

}  // namespace gemmscope
