#pragma once
// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the counter-based generator behind stochastic rounding and the Hadamard signs.
// Counter-based means the output is a pure function of (counter, key): the random bits of an
// element depend only on the seed and the element's index, never on the launch configuration
// or the order threads run in, and the host computes exactly what the GPU computes. The same
// code compiles for both (GEMMSCOPE_HOST_DEVICE).
// A test checks it against Random123's published known-answer vectors.

#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope {

struct Philox4x32Block {
  uint32_t word[4];
};

GEMMSCOPE_HOST_DEVICE inline Philox4x32Block philox4x32_10(const uint32_t counter[4],
                                                           const uint32_t key[2]) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u;
  constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // key schedule increments
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
#if defined(__CUDA_ARCH__)
    // The same products (as 64-bit multiplies, the compiler adds a zero to each high word).
    const uint32_t hi0 = __umulhi(kMultiplier0, c0);
    const uint32_t lo0 = kMultiplier0 * c0;
    const uint32_t hi1 = __umulhi(kMultiplier1, c2);
    const uint32_t lo1 = kMultiplier1 * c2;
#else
    const uint64_t product0 = static_cast<uint64_t>(kMultiplier0) * c0;
    const uint64_t product1 = static_cast<uint64_t>(kMultiplier1) * c2;
    const uint32_t hi0 = static_cast<uint32_t>(product0 >> 32);
    const uint32_t lo0 = static_cast<uint32_t>(product0);
    const uint32_t hi1 = static_cast<uint32_t>(product1 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(product1);
#endif
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return Philox4x32Block{{c0, c1, c2, c3}};
}

// 128 random bits for (seed, stream, block_index): the seed is the key, the stream and the
// 64-bit block index make up the counter. Different streams give independent sequences for
// one seed (stochastic rounding uses one per quantized copy).
GEMMSCOPE_HOST_DEVICE inline Philox4x32Block philox_random_block(uint64_t seed, uint32_t stream,
                                                                 uint64_t block_index) {
  const uint32_t counter[4] = {static_cast<uint32_t>(block_index),
                               static_cast<uint32_t>(block_index >> 32), stream, 0u};
  const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  return philox4x32_10(counter, key);
}

}  // namespace gemmscope
