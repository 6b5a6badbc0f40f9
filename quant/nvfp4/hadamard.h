#pragma once
// The random Hadamard transform (RHT) NVFP4 applies to both operands of the Wgrad GEMM
// before quantizing them, along the contraction dimension (tokens): every 16 consecutive
// elements x of a contraction row become
//
//     y = (1/4) · H · S · x
//
// with H the 16x16 Sylvester Hadamard matrix (H[i][j] = (-1)^popcount(i & j)) and S a diagonal
// of random signs. (1/4)·H·S is orthogonal, so applying it to both operands leaves dYᵀ·X
// unchanged while spreading outliers over 16 elements, which NVFP4's 1x16 blocks quantize
// better. The signs are fixed by a seed, as TransformerEngine fixes its sign vector.
//
// random_hadamard_transform16 is the one implementation the host references call, and the GPU
// kernels run its parts (the signs on packed BF16, then hadamard_transform16; the amax kernel
// scales only the maximum of walsh_hadamard16's results): the butterfly order is fixed and it
// uses only sign flips, additions, subtractions and one scaling by 1/4, so host and GPU produce
// the same FP32 bits.

#include <array>
#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr int kHadamardSize = 16;
// The seed of the sign diagonal every gemmscope RHT uses.
constexpr uint64_t kHadamardSignSeed = 0x4AD4A11D5EED0016ull;

// Bit i set: the sign S[i][i] is -1. Derived from `seed` with Philox.
uint16_t hadamard_sign_mask(uint64_t seed);

// In place: v <- H · v, a fast Walsh-Hadamard transform: four butterfly stages, each pairing
// elements that differ in one index bit.
GEMMSCOPE_HOST_DEVICE inline void walsh_hadamard16(float v[kHadamardSize]) {
  for (int half = 1; half < kHadamardSize; half <<= 1) {
    for (int i = 0; i < kHadamardSize; ++i) {
      if ((i & half) == 0) {
        const float a = v[i];
        const float b = v[i + half];
        v[i] = a + b;
        v[i + half] = a - b;
      }
    }
  }
}

// In place: v <- (1/4) · H · v, the transform after its signs.
GEMMSCOPE_HOST_DEVICE inline void hadamard_transform16(float v[kHadamardSize]) {
  walsh_hadamard16(v);
  for (int i = 0; i < kHadamardSize; ++i)
    v[i] *= 0.25f;
}

// In place: v <- (1/4) · H · S · v, S given by `sign_mask`.
GEMMSCOPE_HOST_DEVICE inline void random_hadamard_transform16(float v[kHadamardSize],
                                                              uint16_t sign_mask) {
  for (int i = 0; i < kHadamardSize; ++i) {
    if ((sign_mask >> i) & 1u)
      v[i] = -v[i];
  }
  hadamard_transform16(v);
}

// S for the kernels, which read BF16 in words of two values that share their index i along the
// transform (two neighbouring columns of one row): XOR-ing word[i] into them makes the
// negations random_hadamard_transform16 makes, on both values at once.
struct HadamardSignWords {
  uint32_t word[kHadamardSize];
};

inline HadamardSignWords hadamard_sign_words(uint16_t sign_mask) {
  HadamardSignWords signs{};
  for (int i = 0; i < kHadamardSize; ++i)
    signs.word[i] = ((sign_mask >> i) & 1u) != 0 ? 0x80008000u : 0u;
  return signs;
}

// The transform as an explicit matrix M = (1/4)·H·S in double, row-major (y = M·x), built
// from the definition for tests and for the RHT-invariance check.
std::array<double, kHadamardSize * kHadamardSize> random_hadamard_matrix(uint16_t sign_mask);

}  // namespace gemmscope
