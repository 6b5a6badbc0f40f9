// Philox4x32-10 against Random123's published known-answer vectors, and how stochastic
// rounding takes its bits from it.

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "quant/nvfp4/detail/philox.h"
#include "quant/nvfp4/detail/stochastic_rounding.h"

namespace gemmscope {
namespace {

void expect_block(const uint32_t counter[4], const uint32_t key[2], const uint32_t expected[4]) {
  const Philox4x32Block block = philox4x32_10(counter, key);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(block.word[i], expected[i]) << "word " << i;
}

TEST(Philox, Random123KnownAnswers) {
  {
    const uint32_t counter[4] = {0, 0, 0, 0};
    const uint32_t key[2] = {0, 0};
    const uint32_t expected[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
    expect_block(counter, key, expected);
  }
  {
    const uint32_t counter[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    const uint32_t key[2] = {0xffffffffu, 0xffffffffu};
    const uint32_t expected[4] = {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu};
    expect_block(counter, key, expected);
  }
  {
    const uint32_t counter[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    const uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
    const uint32_t expected[4] = {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u};
    expect_block(counter, key, expected);
  }
}

TEST(Philox, SeedIsTheKeyStreamAndIndexTheCounter) {
  const uint64_t seed = 0x299f31d0a4093822ull;
  const uint64_t index = 0x85a308d3243f6a88ull;
  const uint32_t counter[4] = {0x243f6a88u, 0x85a308d3u, 7u, 0u};
  const uint32_t key[2] = {0xa4093822u, 0x299f31d0u};
  const Philox4x32Block direct = philox4x32_10(counter, key);
  const Philox4x32Block mapped = philox_random_block(seed, 7, index);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(mapped.word[i], direct.word[i]);
}

// Element 8k + j takes the j-th 16-bit half (low half first) of block k.
TEST(StochasticRoundingBits, EightElementsShareOneBlock) {
  const uint64_t seed = 42;
  for (uint64_t block = 0; block < 4; ++block) {
    const Philox4x32Block random = philox_random_block(seed, kColumnwiseRoundingStream, block);
    for (int j = 0; j < 8; ++j) {
      const uint32_t word = random.word[j / 2];
      const uint16_t expected = static_cast<uint16_t>(j % 2 == 0 ? word & 0xFFFF : word >> 16);
      EXPECT_EQ(stochastic_rounding_bits(seed, kColumnwiseRoundingStream, 8 * block + j), expected);
    }
  }
}

TEST(StochasticRoundingBits, ReproducibleAndDistinctPerSeedAndStream) {
  std::set<uint64_t> sequences;
  for (const uint64_t seed : {uint64_t{1}, uint64_t{2}}) {
    for (const uint32_t stream : {kRowwiseRoundingStream, kColumnwiseRoundingStream}) {
      uint64_t packed = 0;
      for (uint64_t index = 0; index < 4; ++index) {
        const uint16_t bits = stochastic_rounding_bits(seed, stream, index);
        EXPECT_EQ(bits, stochastic_rounding_bits(seed, stream, index));
        packed = packed << 16 | bits;
      }
      sequences.insert(packed);
    }
  }
  EXPECT_EQ(sequences.size(), 4u);
}

}  // namespace
}  // namespace gemmscope
