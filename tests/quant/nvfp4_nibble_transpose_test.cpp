// The 8x8 nibble transpose that makes a 16x16-block NVFP4 weight's columnwise codes from its
// rowwise ones, against the transpose written out nibble by nibble.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "quant/nvfp4/detail/nibble_transpose.h"

namespace gemmscope {
namespace {

uint32_t nibble(uint32_t word, int index) {
  return (word >> (4 * index)) & 0xFu;
}

TEST(NibbleTranspose, MatchesTheTransposeNibbleByNibble) {
  std::mt19937 generator(7);
  for (int trial = 0; trial < 1000; ++trial) {
    uint32_t words[8];
    uint32_t original[8];
    for (int r = 0; r < 8; ++r)
      original[r] = words[r] = static_cast<uint32_t>(generator());
    detail::transpose_nibbles_8x8(words);
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c)
        ASSERT_EQ(nibble(words[c], r), nibble(original[r], c)) << "row " << r << " col " << c;
    }
  }
}

TEST(NibbleTranspose, IsItsOwnInverse) {
  uint32_t words[8];
  for (uint32_t r = 0; r < 8; ++r)
    words[r] = 0x76543210u + 0x11111111u * r;  // nibble c of row r: (r + c) mod 16
  const uint32_t expected[8] = {words[0], words[1], words[2], words[3],
                                words[4], words[5], words[6], words[7]};
  detail::transpose_nibbles_8x8(words);
  EXPECT_EQ(words[1], 0x87654321u);  // column 1: rows 0..7 hold 1..8
  detail::transpose_nibbles_8x8(words);
  for (int r = 0; r < 8; ++r)
    EXPECT_EQ(words[r], expected[r]) << r;
}

TEST(SelectBytes, HostMatchesPrmtSemantics) {
  EXPECT_EQ(detail::select_bytes(0x33221100u, 0x77665544u, 0x5410), 0x55441100u);
  EXPECT_EQ(detail::select_bytes(0x33221100u, 0x77665544u, 0x7632), 0x77663322u);
  EXPECT_EQ(detail::select_bytes(0x33221100u, 0x77665544u, 0x6240), 0x66224400u);
  EXPECT_EQ(detail::gather_low_bytes(0xAAAAAA01u, 0xBBBBBB02u, 0xCCCCCC03u, 0xDDDDDD04u),
            0x04030201u);
}

}  // namespace
}  // namespace gemmscope
