// GroupedLayout: where each group of a grouped operand lives in the shared copy and scale
// buffers, for ragged and empty groups and every FP8 scale layout. No GPU.

#include "quant/grouped_layout.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "quant/fp8/scale_layout.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

// Rows that are not multiples of 4, 16 or 128, empty groups first, inside and last.
const std::vector<int64_t> kRagged = {0, 1, 17, 128, 250, 0, 384, 3, 0};

int64_t vec128_bytes(int64_t rows, int64_t cols) {
  return vec128_scale_count(rows, cols) * static_cast<int64_t>(sizeof(float));
}
int64_t block128_bytes(int64_t rows, int64_t cols) {
  return block128_scale_count(rows, cols) * static_cast<int64_t>(sizeof(float));
}

TEST(GroupedLayout, RowAndElementOffsetsOfRaggedGroups) {
  const GroupedLayout layout(kRagged, 272);
  EXPECT_EQ(layout.group_count(), 9);
  EXPECT_EQ(layout.rows(), 783);
  EXPECT_EQ(layout.cols(), 272);
  const std::vector<int64_t> offsets = {0, 0, 1, 18, 146, 396, 396, 780, 783};
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    EXPECT_EQ(layout.group_rows(g), kRagged[g]);
    EXPECT_EQ(layout.row_offset(g), offsets[g]);
    EXPECT_EQ(layout.element_offset(g), offsets[g] * 272);
  }
}

TEST(GroupedLayout, EmptyGroupsHaveNoScalesAndTakeNoSpace) {
  const GroupedLayout layout({0, 5, 0, 0, 7, 0}, 128);
  int calls = 0;
  const GroupedScaleLayout scales = layout.scales(false, [&calls](int64_t rows, int64_t cols) {
    ++calls;
    EXPECT_GT(rows, 0);
    return rows * cols;
  });
  EXPECT_EQ(calls, 2) << "the size function is called only for groups with rows";
  const std::vector<int64_t> offsets = {0, 0, 640, 640, 640, 1536};
  const std::vector<int64_t> bytes = {0, 640, 0, 0, 896, 0};
  for (int64_t g = 0; g < 6; ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    EXPECT_EQ(scales.offset(g), offsets[g]);
    EXPECT_EQ(scales.bytes(g), bytes[g]);
  }
  EXPECT_EQ(scales.total_bytes(), 1536);
}

TEST(GroupedLayout, AllGroupsEmpty) {
  const GroupedLayout layout({0, 0}, 64);
  EXPECT_EQ(layout.rows(), 0);
  const GroupedScaleLayout scales = layout.scales(true, vec128_bytes);
  EXPECT_EQ(scales.total_bytes(), 0);
  EXPECT_EQ(scales.offset(1), 0);
  EXPECT_EQ(scales.bytes(1), 0);
}

// Each group's offset is the previous one's plus its size rounded up to 16 bytes, whatever the
// sizes; the function is called with each copy's own orientation.
void expect_packed_and_aligned(const GroupedLayout& layout, bool columnwise,
                               const GroupScaleBytes& bytes) {
  const GroupedScaleLayout scales = layout.scales(columnwise, bytes);
  int64_t expected_offset = 0;
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g) + (columnwise ? " columnwise" : " rowwise"));
    const int64_t rows = layout.group_rows(g);
    const int64_t expected_bytes = rows == 0    ? 0
                                   : columnwise ? bytes(layout.cols(), rows)
                                                : bytes(rows, layout.cols());
    EXPECT_EQ(scales.bytes(g), expected_bytes);
    EXPECT_EQ(scales.offset(g), expected_offset);
    EXPECT_EQ(scales.offset(g) % kGroupedScaleAlignment, 0);
    expected_offset += round_up(expected_bytes, kGroupedScaleAlignment);
  }
  EXPECT_EQ(scales.total_bytes(), expected_offset);
}

TEST(GroupedLayout, Vec128ScalesOfEachCopy) {
  const GroupedLayout layout(kRagged, 272);
  // Rowwise: group of 17 rows has [ceil(272/128) = 3][roundup(17, 4) = 20] slots, 240 bytes.
  const GroupedScaleLayout rowwise = layout.scales(false, vec128_bytes);
  EXPECT_EQ(rowwise.bytes(2), 3 * 20 * 4);
  EXPECT_EQ(rowwise.bytes(1), 3 * 4 * 4);  // one row padded to 4
  EXPECT_EQ(rowwise.offset(2), 48);
  // Columnwise: the group's transpose [272, 17] has [ceil(17/128) = 1][roundup(272, 4)] slots.
  const GroupedScaleLayout columnwise = layout.scales(true, vec128_bytes);
  EXPECT_EQ(columnwise.bytes(2), 1 * 272 * 4);
  EXPECT_EQ(columnwise.bytes(6), 3 * 272 * 4);  // 384 rows: 3 blocks along them
  expect_packed_and_aligned(layout, false, vec128_bytes);
  expect_packed_and_aligned(layout, true, vec128_bytes);
}

TEST(GroupedLayout, Block128x128ScalesOfEachCopy) {
  const GroupedLayout layout(kRagged, 272);
  // Rowwise: 250 rows x 272 cols are [2][roundup(3, 4) = 4] blocks.
  const GroupedScaleLayout rowwise = layout.scales(false, block128_bytes);
  EXPECT_EQ(rowwise.bytes(4), 2 * 4 * 4);
  EXPECT_EQ(rowwise.bytes(1), 1 * 4 * 4);
  // Columnwise: the transpose [272, 250] is [3][roundup(2, 4) = 4] blocks.
  const GroupedScaleLayout columnwise = layout.scales(true, block128_bytes);
  EXPECT_EQ(columnwise.bytes(4), 3 * 4 * 4);
  expect_packed_and_aligned(layout, false, block128_bytes);
  expect_packed_and_aligned(layout, true, block128_bytes);
}

TEST(GroupedLayout, SizesThatAreNotMultiplesOfTheAlignment) {
  const GroupedLayout layout({3, 1, 0, 2}, 7);
  // One byte per element: 21, 7, 0 and 14 bytes start at 0, 32, 48 and 48.
  const GroupedScaleLayout scales =
      layout.scales(false, [](int64_t rows, int64_t cols) { return rows * cols; });
  EXPECT_EQ(scales.offset(0), 0);
  EXPECT_EQ(scales.offset(1), 32);
  EXPECT_EQ(scales.offset(2), 48);
  EXPECT_EQ(scales.offset(3), 48);
  EXPECT_EQ(scales.total_bytes(), 64);
  expect_packed_and_aligned(layout, true,
                            [](int64_t rows, int64_t cols) { return (rows * cols + 1) / 2; });
}

TEST(GroupedLayout, RefusedWithTheOffendingValue) {
  std::string message = thrown_message<std::invalid_argument>([] { GroupedLayout({}, 16); });
  EXPECT_TRUE(contains(message, "at least one group")) << message;
  message = thrown_message<std::invalid_argument>([] { GroupedLayout({4, -2}, 16); });
  EXPECT_TRUE(contains(message, "group 1") && contains(message, "-2")) << message;
  message = thrown_message<std::invalid_argument>([] { GroupedLayout({4}, 0); });
  EXPECT_TRUE(contains(message, "cols") && contains(message, "0")) << message;
  const GroupedLayout layout({4, 4}, 16);
  message = thrown_message<std::invalid_argument>([&] { layout.row_offset(2); });
  EXPECT_TRUE(contains(message, "no group 2 of 2")) << message;
  message = thrown_message<std::invalid_argument>([&] { layout.group_rows(-1); });
  EXPECT_TRUE(contains(message, "no group -1")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { layout.scales(false, [](int64_t, int64_t) { return int64_t{-1}; }); });
  EXPECT_TRUE(contains(message, "negative size -1")) << message;
  message =
      thrown_message<std::invalid_argument>([&] { layout.scales(false, vec128_bytes).offset(5); });
  EXPECT_TRUE(contains(message, "no group 5")) << message;
}

}  // namespace
}  // namespace gemmscope
