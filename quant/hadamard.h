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
// random_hadamard_transform16 is the one implementation both the GPU kernels and the host
// references call: its butterfly order is fixed and it uses only additions, subtractions and
// one exact scaling by 1/4, so host and GPU produce the same FP32 bits.

#include <array>
#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

constexpr int kHadamardSize = 16;
// The seed of the sign diagonal every gemmscope RHT uses.
constexpr uint64_t kHadamardSignSeed = 0x4AD4A11D5EED0016ull;

// Bit i set: the sign S[i][i] is -1. Derived from `seed` with Philox.
uint16_t hadamard_sign_mask(uint64_t seed);

// In place: v <- (1/4) · H · S · v, S given by `sign_mask`. A fast Walsh-Hadamard transform:
// four butterfly stages, each pairing elements that differ in one index bit.
GEMMSCOPE_HOST_DEVICE inline void random_hadamard_transform16(float v[kHadamardSize],
                                                              uint16_t sign_mask) {
  for (int i = 0; i < kHadamardSize; ++i) {
    if ((sign_mask >> i) & 1u)
      v[i] = -v[i];
  }
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
  for (int i = 0; i < kHadamardSize; ++i)
    v[i] *= 0.25f;
}

// The transform as an explicit matrix M = (1/4)·H·S in double, row-major (y = M·x), built
// from the definition for tests and for the RHT-invariance check.
std::array<double, kHadamardSize * kHadamardSize> random_hadamard_matrix(uint16_t sign_mask);

}  // namespace gemmscope
