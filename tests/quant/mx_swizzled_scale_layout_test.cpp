// The swizzled 128x4 scale layout of cuBLASLt's VEC32_UE8M0 / VEC16_UE4M3 modes, on a small
// example whose offsets were computed by hand.

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "quant/swizzled_scale_layout.h"

namespace gemmscope {
namespace {

// 130 rows and 5 scale columns (an MXFP8 operand with K = 160, or NVFP4 with K = 80): padded to
// 256 x 8, i.e. 2 x 2 tiles of 512 bytes, tiles_per_row = 2.
TEST(SwizzledScaleLayout, HandComputedOffsets) {
  const SwizzledScaleLayout layout(130, 5);
  EXPECT_EQ(layout.padded_rows(), 256);
  EXPECT_EQ(layout.padded_scale_cols(), 8);
  EXPECT_EQ(layout.bytes(), 2048u);
  // Tile 0: (i % 32) * 16 + (i / 32) * 4 + j.
  EXPECT_EQ(layout.offset(0, 0), 0u);
  EXPECT_EQ(layout.offset(0, 3), 3u);
  EXPECT_EQ(layout.offset(1, 0), 16u);
  EXPECT_EQ(layout.offset(31, 2), 498u);  // 31 * 16 + 2
  EXPECT_EQ(layout.offset(32, 0), 4u);    // row 32 shares a 16-byte line with row 0
  EXPECT_EQ(layout.offset(33, 1), 21u);   // 16 + 4 + 1
  EXPECT_EQ(layout.offset(64, 0), 8u);
  EXPECT_EQ(layout.offset(96, 3), 15u);
  EXPECT_EQ(layout.offset(127, 3), 511u);  // 31 * 16 + 3 * 4 + 3: last byte of the tile
  // Tile 1 holds scale columns 4..7 of rows 0..127.
  EXPECT_EQ(layout.offset(0, 4), 512u);
  EXPECT_EQ(layout.offset(40, 6), 646u);  // 512 + 8 * 16 + 1 * 4 + 2
  // Tiles 2 and 3: rows 128..255.
  EXPECT_EQ(layout.offset(128, 0), 1024u);
  EXPECT_EQ(layout.offset(129, 4), 1552u);  // 1536 + 16
  // Padding: scale column 5..7 of real rows, and rows 130..255.
  EXPECT_EQ(layout.offset(129, 7), 1555u);
  EXPECT_EQ(layout.offset(130, 0), 1056u);  // 1024 + 2 * 16
  EXPECT_EQ(layout.offset(255, 7), 2047u);
  EXPECT_FALSE(layout.is_padding(129, 4));
  EXPECT_TRUE(layout.is_padding(129, 5));
  EXPECT_TRUE(layout.is_padding(130, 0));
}

// TransformerEngine's documentation describes the same permutation another way: number the
// 4-byte rows of a 128x4 tile 0..127; in memory they appear as 0, 32, 64, 96, 1, 33, 65, 97, ...
TEST(SwizzledScaleLayout, MatchesTheDocumentedQuadrupleOrder) {
  const SwizzledScaleLayout layout(128, 4);
  for (int position = 0; position < 128; ++position) {
    const int row = position % 4 * 32 + position / 4;
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(layout.offset(row, j), static_cast<size_t>(4 * position + j)) << row;
    }
  }
}

// Every byte of the buffer belongs to exactly one (row, scale column).
TEST(SwizzledScaleLayout, IsAPermutationOfTheBuffer) {
  const SwizzledScaleLayout layout(300, 9);
  std::vector<int> hits(layout.bytes(), 0);
  for (int64_t row = 0; row < layout.padded_rows(); ++row) {
    for (int64_t col = 0; col < layout.padded_scale_cols(); ++col) {
      ++hits.at(layout.offset(row, col));
    }
  }
  for (size_t byte = 0; byte < hits.size(); ++byte)
    ASSERT_EQ(hits[byte], 1) << byte;
}

TEST(SwizzledScaleLayout, RefusesBadArguments) {
  EXPECT_THROW(SwizzledScaleLayout(0, 5), std::invalid_argument);
  EXPECT_THROW(SwizzledScaleLayout(5, -1), std::invalid_argument);
  try {
    SwizzledScaleLayout(-7, 1);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("-7"), std::string::npos) << error.what();
  }
  const SwizzledScaleLayout layout(130, 5);
  EXPECT_THROW(layout.offset(256, 0), std::out_of_range);
  EXPECT_THROW(layout.offset(0, 8), std::out_of_range);
  EXPECT_THROW(layout.offset(-1, 0), std::out_of_range);
}

}  // namespace
}  // namespace gemmscope
