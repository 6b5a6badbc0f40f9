#pragma once
// Where the random bits of stochastic rounding come from. Element `index` of a quantized copy
// (its row-major position in that copy) draws 16 bits: one Philox block serves 8 consecutive
// elements, so a GPU thread that converts 8 or 16 neighbours runs the generator once or twice.
// 16 bits make each rounding probability exact to 2^-16 of the gap between the two E2M1
// neighbours (see encode_e2m1_stochastic), far below what training can notice.
//
// The rowwise and columnwise copies of one tensor use different streams, so they do not
// share random bits although they quantize the same values.

#include <cstdint>

#include "quant/host_device.h"
#include "quant/nvfp4/detail/philox.h"

namespace gemmscope {

constexpr uint32_t kRowwiseRoundingStream = 0;
constexpr uint32_t kColumnwiseRoundingStream = 1;
constexpr int kRoundingElementsPerBlock = 8;

// The 16 bits of element `position` (0..7) of a block: the low half of word position / 2 for
// even positions, the high half for odd ones. A kernel that unrolls over the positions keeps
// the block in registers.
GEMMSCOPE_HOST_DEVICE inline uint16_t rounding_bits_at(const Philox4x32Block& block, int position) {
  const uint32_t word = block.word[position / 2];
  return static_cast<uint16_t>(position % 2 != 0 ? word >> 16 : word & 0xFFFFu);
}

// The Philox block that holds element `index` of a copy.
GEMMSCOPE_HOST_DEVICE inline Philox4x32Block rounding_block(uint64_t seed, uint32_t stream,
                                                            uint64_t index) {
  return philox_random_block(seed, stream, index / kRoundingElementsPerBlock);
}

// The 16 random bits of element `index` of a copy.
GEMMSCOPE_HOST_DEVICE inline uint16_t stochastic_rounding_bits(uint64_t seed, uint32_t stream,
                                                               uint64_t index) {
  return rounding_bits_at(rounding_block(seed, stream, index),
                          static_cast<int>(index % kRoundingElementsPerBlock));
}

}  // namespace gemmscope
