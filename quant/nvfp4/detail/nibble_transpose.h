#pragma once
// Transposes an 8x8 matrix of 4-bit codes held as eight words (word r holds row r, column c in
// nibble c) into its transpose (word c then holds column c, row r in nibble r). The NVFP4 kernel
// uses it to make the columnwise copy of a 16x16-block tensor from the rowwise codes: both
// copies share every block's scale, so their codes are the same numbers, transposed.
//
// Three stages, each exchanging one bit of the word index with the same bit of the nibble
// index: halves between words r and r + 4, bytes between r and r + 2, nibbles between r and
// r + 1. After all three, word i nibble n holds what was word n nibble i. 32 operations for
// 64 codes. (The loops have constant trip counts; nvcc unrolls them.)

#include <cstdint>

#include "quant/detail/block_codecs.h"
#include "quant/host_device.h"

namespace gemmscope::detail {

GEMMSCOPE_HOST_DEVICE inline void transpose_nibbles_8x8(uint32_t (&words)[8]) {
  for (int r = 0; r < 4; ++r) {  // halves: bit 2 of the word index with bit 2 of the nibble's
    const uint32_t low = words[r];
    const uint32_t high = words[r + 4];
    words[r] = select_bytes(low, high, 0x5410);
    words[r + 4] = select_bytes(low, high, 0x7632);
  }
  for (int k = 0; k < 4; ++k) {  // bytes: bit 1 with bit 1, words 0, 1, 4, 5 with 2, 3, 6, 7
    const int r = (k & 1) | (k & 2) << 1;
    const uint32_t low = words[r];
    const uint32_t high = words[r + 2];
    words[r] = select_bytes(low, high, 0x6240);
    words[r + 2] = select_bytes(low, high, 0x7351);
  }
  for (int r = 0; r < 8; r += 2) {  // nibbles: bit 0 with bit 0
    const uint32_t low = words[r];
    const uint32_t high = words[r + 1];
    words[r] = (low & 0x0F0F0F0Fu) | ((high & 0x0F0F0F0Fu) << 4);
    words[r + 1] = ((low >> 4) & 0x0F0F0F0Fu) | (high & 0xF0F0F0F0u);
  }
}

}  // namespace gemmscope::detail
