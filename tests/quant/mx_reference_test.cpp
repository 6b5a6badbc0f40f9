// The host MXFP8 reference on blocks checked by hand: E8M0 scales, E4M3 elements, the swizzled
// scale positions, the non-finite policy, and the shapes it refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/host_matrix.h"
#include "quant/mxfp8/reference.h"
#include "quant/swizzled_scale_layout.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

// Rows of 64: two blocks of 32.
std::vector<float> hand_checked_rows() {
  std::vector<float> values(3 * 64, 0.0f);
  // Row 0, block 0: amax 448 -> scale 2^0 (code 127), elements stored as they are.
  values[0] = 448.0f;  // 0x7E, E4M3's largest
  values[1] = 1.0f;    // 0x38
  values[2] = -2.0f;   // 0xC0
  values[3] = 0.001f;  // 0.512 * 2^-9 rounds to the smallest subnormal: 0x01
  // Row 0, block 1: amax 1000 -> 1000/448 = 2.23 -> scale 4 (code 129), elements / 4.
  values[32] = 1000.0f;  // 250 -> 256 (nearer than 240): 0x78
  values[33] = 3.0f;     // 0.75: 0x34
  values[34] = -250.0f;  // -62.5 -> -64 (nearer than -60): 0xE8
  // Row 1, block 0 holds a NaN; block 1 is all zeros.
  values[64 + 5] = std::numeric_limits<float>::quiet_NaN();
  values[64 + 6] = 1.0f;
  // Row 2, block 0 holds -inf; block 1 an ordinary value.
  values[128 + 7] = -std::numeric_limits<float>::infinity();
  values[128 + 40] = 0.5f;  // 0.5 / 448 -> 2^-9 (code 118); 0.5 * 2^9 = 256: 0x78
  return values;
}

TEST(Mxfp8Reference, HandCheckedBlocks) {
  const HostQuantizedCopy copy = reference_quantize_mxfp8(hand_checked_rows(), 3, 64);
  ASSERT_EQ(copy.data.size(), 3u * 64);
  EXPECT_EQ(copy.data[0], 0x7E);
  EXPECT_EQ(copy.data[1], 0x38);
  EXPECT_EQ(copy.data[2], 0xC0);
  EXPECT_EQ(copy.data[3], 0x01);
  EXPECT_EQ(copy.data[4], 0x00);
  EXPECT_EQ(copy.data[32], 0x78);
  EXPECT_EQ(copy.data[33], 0x34);
  EXPECT_EQ(copy.data[34], 0xE8);
  for (int c = 0; c < 32; ++c)
    EXPECT_EQ(copy.data[64 + c], 0x7F) << c;  // NaN block
  for (int c = 32; c < 64; ++c)
    EXPECT_EQ(copy.data[64 + c], 0x00) << c;  // zero block
  for (int c = 0; c < 32; ++c)
    EXPECT_EQ(copy.data[128 + c], 0x7F) << c;  // inf block
  EXPECT_EQ(copy.data[128 + 40], 0x78);

  // 3 rows x 2 scale columns, padded to 128 x 4: one 512-byte tile. Row i, column j at
  // (i % 32) * 16 + j.
  ASSERT_EQ(copy.scale.size(), 512u);
  EXPECT_EQ(copy.scale[0], 127);
  EXPECT_EQ(copy.scale[1], 129);
  EXPECT_EQ(copy.scale[16], 0xFF);
  EXPECT_EQ(copy.scale[17], 0);  // all-zero block: 2^-127
  EXPECT_EQ(copy.scale[32], 0xFF);
  EXPECT_EQ(copy.scale[33], 118);
  int padding = 0;
  for (size_t i = 0; i < copy.scale.size(); ++i) {
    if (i != 0 && i != 1 && i != 16 && i != 17 && i != 32 && i != 33) {
      EXPECT_EQ(copy.scale[i], kSwizzledScalePadding) << i;
      ++padding;
    }
  }
  EXPECT_EQ(padding, 506);
}

TEST(Mxfp8Reference, DequantizesHandCheckedBlocks) {
  const std::vector<float> values =
      reference_dequantize_mxfp8(reference_quantize_mxfp8(hand_checked_rows(), 3, 64));
  EXPECT_EQ(values[0], 448.0f);
  EXPECT_EQ(values[1], 1.0f);
  EXPECT_EQ(values[2], -2.0f);
  EXPECT_EQ(values[3], std::ldexp(1.0f, -9));
  EXPECT_EQ(values[32], 1024.0f);
  EXPECT_EQ(values[33], 3.0f);
  EXPECT_EQ(values[34], -256.0f);
  EXPECT_TRUE(std::isnan(values[64 + 6]));  // the whole NaN block reads back as NaN
  EXPECT_EQ(values[64 + 40], 0.0f);
  EXPECT_EQ(values[128 + 40], 0.5f);
}

// Every element comes back within E4M3's half-ulp (2^-4 relative) or, below the normal range,
// half the subnormal spacing of its block.
TEST(Mxfp8Reference, RoundTripErrorIsBounded) {
  const int64_t rows = 40;
  const int64_t cols = 96;
  const std::vector<float> values = widen_bf16(testing::random_bf16(rows, cols, 17));
  const HostQuantizedCopy copy = reference_quantize_mxfp8(values, rows, cols);
  const std::vector<float> back = reference_dequantize_mxfp8(copy);
  const SwizzledScaleLayout layout(rows, cols / 32);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const float scale = std::ldexp(1.0f, copy.scale[layout.offset(r, c / 32)] - 127);
      const float x = values[r * cols + c];
      const float bound = std::max(std::fabs(x) / 16.0f, scale * std::ldexp(1.0f, -10));
      EXPECT_LE(std::fabs(back[r * cols + c] - x), bound) << r << ", " << c;
    }
  }
}

TEST(Mxfp8Reference, RefusesShapesTheFormatCannotTake) {
  const std::vector<__nv_bfloat16> input(64 * 48);
  std::string message = thrown_message<std::invalid_argument>(
      [&] { reference_quantize_mxfp8_tensor(input, 64, 48, OperandCopies::kRowwise); });
  EXPECT_TRUE(contains(message, "MXFP8") && contains(message, "48")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { reference_quantize_mxfp8_tensor(input, 48, 64, OperandCopies::kBoth); });
  EXPECT_TRUE(contains(message, "rows") && contains(message, "48")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { reference_quantize_mxfp8_tensor(input, 0, 64, OperandCopies::kRowwise); });
  EXPECT_TRUE(contains(message, "positive") && contains(message, "0")) << message;
  // A rowwise-only copy takes any number of rows.
  EXPECT_NO_THROW(reference_quantize_mxfp8_tensor(std::vector<__nv_bfloat16>(33 * 64), 33, 64,
                                                  OperandCopies::kRowwise));
}

}  // namespace
}  // namespace gemmscope
