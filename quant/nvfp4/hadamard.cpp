#include "quant/nvfp4/hadamard.h"

#include <bitset>

#include "quant/nvfp4/detail/philox.h"

namespace gemmscope {
namespace {

// A Philox stream of its own, so that no seed shared with stochastic rounding correlates them.
constexpr uint32_t kHadamardSignStream = 0x4AD4u;

}  // namespace

uint16_t hadamard_sign_mask(uint64_t seed) {
  return static_cast<uint16_t>(philox_random_block(seed, kHadamardSignStream, 0).word[0]);
}

std::array<double, kHadamardSize * kHadamardSize> random_hadamard_matrix(uint16_t sign_mask) {
  std::array<double, kHadamardSize * kHadamardSize> matrix{};
  for (int row = 0; row < kHadamardSize; ++row) {
    for (int col = 0; col < kHadamardSize; ++col) {
      const bool negative_h = std::bitset<8>(static_cast<unsigned>(row & col)).count() % 2 == 1;
      const bool negative_s = ((sign_mask >> col) & 1u) != 0;
      matrix[row * kHadamardSize + col] = (negative_h != negative_s) ? -0.25 : 0.25;
    }
  }
  return matrix;
}

}  // namespace gemmscope
