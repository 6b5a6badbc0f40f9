// Mxfp8OperandLayout: buffer sizes, views, refused shapes; and quantize_mxfp8's argument checks,
// which run on the host before anything touches the GPU.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

TEST(Mxfp8OperandLayout, SizesAndViews) {
  const Mxfp8OperandLayout layout(96, 160, OperandCopies::kBoth);
  EXPECT_EQ(layout.data_bytes(), 96 * 160);
  EXPECT_EQ(layout.rowwise_scale_bytes(), 128 * 8);     // 96 -> 128 rows, 5 -> 8 scale columns
  EXPECT_EQ(layout.columnwise_scale_bytes(), 256 * 4);  // 160 -> 256 rows, 3 -> 4 scale columns
  EXPECT_EQ(layout.buffer_count(), 4);

  const uint8_t* data = reinterpret_cast<const uint8_t*>(0x1000);
  const uint8_t* scale = reinterpret_cast<const uint8_t*>(0x2000);
  const QuantizedTensor rowwise = layout.rowwise(data, scale);
  EXPECT_EQ(rowwise.format, ElementFormat::kE4M3);
  EXPECT_EQ(rowwise.scale_layout, ScaleLayout::kVec32Ue8m0);
  EXPECT_EQ(rowwise.rows, 96);
  EXPECT_EQ(rowwise.cols, 160);
  EXPECT_EQ(rowwise.data, data);
  EXPECT_EQ(rowwise.scale, scale);
  EXPECT_EQ(rowwise.tensor_scale, nullptr);
  const QuantizedTensor columnwise = layout.columnwise(data, scale);
  EXPECT_EQ(columnwise.rows, 160);
  EXPECT_EQ(columnwise.cols, 96);
}

TEST(Mxfp8OperandLayout, OneCopy) {
  const Mxfp8OperandLayout layout(33, 64, OperandCopies::kRowwise);
  EXPECT_EQ(layout.rowwise_scale_bytes(), 128 * 4);
  EXPECT_EQ(layout.columnwise_scale_bytes(), 0);
  EXPECT_EQ(layout.buffer_count(), 2);
  EXPECT_THROW(layout.columnwise(nullptr, nullptr), std::logic_error);
}

TEST(Mxfp8OperandLayout, RefusesShapesTheFormatCannotTake) {
  std::string message = thrown_message<std::invalid_argument>(
      [] { Mxfp8OperandLayout(64, 100, OperandCopies::kRowwise); });
  EXPECT_TRUE(contains(message, "32") && contains(message, "100")) << message;
  message = thrown_message<std::invalid_argument>(
      [] { Mxfp8OperandLayout(33, 64, OperandCopies::kColumnwise); });
  EXPECT_TRUE(contains(message, "rows") && contains(message, "33")) << message;
  message = thrown_message<std::invalid_argument>(
      [] { Mxfp8OperandLayout(64, -32, OperandCopies::kRowwise); });
  EXPECT_TRUE(contains(message, "-32")) << message;
}

TEST(Mxfp8Quantize, ChecksItsArgumentsOnTheHost) {
  auto* input = reinterpret_cast<const __nv_bfloat16*>(0x10000);
  auto* buffer = reinterpret_cast<uint8_t*>(0x20000);
  const Mxfp8CopyBuffers good{buffer, buffer};
  std::string message = thrown_message<std::invalid_argument>([&] {
    quantize_mxfp8(input, 64, 64, OperandCopies::kBoth, good, Mxfp8CopyBuffers{}, nullptr);
  });
  EXPECT_TRUE(contains(message, "columnwise data") && contains(message, "null")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { quantize_mxfp8(input + 1, 64, 64, OperandCopies::kRowwise, good, {}, nullptr); });
  EXPECT_TRUE(contains(message, "input") && contains(message, "aligned")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { quantize_mxfp8(input, 64, 48, OperandCopies::kRowwise, good, {}, nullptr); });
  EXPECT_TRUE(contains(message, "48")) << message;
}

}  // namespace
}  // namespace gemmscope
