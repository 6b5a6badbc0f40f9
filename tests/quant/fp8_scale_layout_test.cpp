// cuBLASLt's VEC128_32F and BLK128x128_32F scale layouts, and the FP8 operand sizes and views.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "quant/base/unsupported.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/scale_layout.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

TEST(Fp8ScaleLayout, Vec128CountsAndSlots) {
  // [ceil(391/128) = 4][roundup(257, 4) = 260], rows fastest.
  EXPECT_EQ(vec128_scale_count(257, 391), 4 * 260);
  EXPECT_EQ(vec128_scale_index(0, 0, 257), 0);
  EXPECT_EQ(vec128_scale_index(256, 0, 257), 256);  // last real row of block column 0
  EXPECT_EQ(vec128_scale_index(0, 1, 257), 260);    // slots 257..259 are padding
  EXPECT_EQ(vec128_scale_index(5, 3, 257), 3 * 260 + 5);
  EXPECT_EQ(vec128_scale_count(1, 1), 4);
  EXPECT_EQ(vec128_scale_count(128, 128), 128);
}

TEST(Fp8ScaleLayout, Block128CountsAndSlots) {
  // [ceil(300/128) = 3][roundup(ceil(1000/128) = 8, 4) = 8].
  EXPECT_EQ(block128_scale_count(300, 1000), 24);
  // [ceil(257/128) = 3][roundup(ceil(391/128) = 4, 4) = 4].
  EXPECT_EQ(block128_scale_count(257, 391), 12);
  // [1][roundup(2, 4) = 4]: slots 2 and 3 are padding.
  EXPECT_EQ(block128_scale_count(128, 129), 4);
  EXPECT_EQ(block128_scale_index(0, 1, 129), 1);
  EXPECT_EQ(block128_scale_index(2, 1, 391), 2 * 4 + 1);
  EXPECT_EQ(block128_scale_index(1, 0, 129), 4);
}

TEST(Fp8OperandLayout, SizesPerLayout) {
  const Fp8OperandLayout tensorwise(257, 391, ElementFormat::kE5M2, ScaleLayout::kTensor);
  EXPECT_EQ(tensorwise.data_bytes(), 257 * 391);
  EXPECT_EQ(tensorwise.rowwise_scale_count(), 1);
  EXPECT_EQ(tensorwise.columnwise_scale_count(), 1);

  const Fp8OperandLayout vec(257, 391, ElementFormat::kE4M3, ScaleLayout::kVec128);
  EXPECT_EQ(vec.rowwise_scale_count(), 4 * 260);     // [ceil(391/128)][roundup(257,4)]
  EXPECT_EQ(vec.columnwise_scale_count(), 3 * 392);  // [ceil(257/128)][roundup(391,4)]

  const Fp8OperandLayout block(300, 1000, ElementFormat::kE4M3, ScaleLayout::kBlock128x128);
  EXPECT_EQ(block.rowwise_scale_count(), 3 * 8);     // [3][roundup(8,4)]
  EXPECT_EQ(block.columnwise_scale_count(), 8 * 4);  // [8][roundup(3,4)]
}

TEST(Fp8OperandLayout, ViewsDescribeBothCopies) {
  const Fp8OperandLayout layout(300, 1000, ElementFormat::kE4M3, ScaleLayout::kVec128);
  const uint8_t data[1] = {0};
  const float scales[1] = {1.0f};
  const QuantizedTensor rowwise = layout.rowwise(data, scales);
  EXPECT_EQ(rowwise.rows, 300);
  EXPECT_EQ(rowwise.cols, 1000);
  EXPECT_EQ(rowwise.data, data);
  EXPECT_EQ(rowwise.scale, scales);
  EXPECT_EQ(rowwise.format, ElementFormat::kE4M3);
  EXPECT_EQ(rowwise.scale_layout, ScaleLayout::kVec128);
  const QuantizedTensor columnwise = layout.columnwise(data, scales);
  EXPECT_EQ(columnwise.rows, 1000);
  EXPECT_EQ(columnwise.cols, 300);
  EXPECT_EQ(columnwise.scale_layout, ScaleLayout::kVec128);
}

TEST(Fp8OperandLayout, RefusesWhatTheLayoutsCannotTake) {
  auto make = [](int64_t rows, int64_t cols, ElementFormat format, ScaleLayout layout) {
    return [=] { Fp8OperandLayout(rows, cols, format, layout); };
  };
  std::string message = thrown_message<std::invalid_argument>(
      make(0, 16, ElementFormat::kE4M3, ScaleLayout::kTensor));
  EXPECT_TRUE(contains(message, "rows") && contains(message, "0")) << message;
  message = thrown_message<std::invalid_argument>(
      make(16, -5, ElementFormat::kE4M3, ScaleLayout::kTensor));
  EXPECT_TRUE(contains(message, "-5")) << message;
  message = thrown_message<std::invalid_argument>(
      make(16, 16, ElementFormat::kE5M2, ScaleLayout::kVec128));
  EXPECT_TRUE(contains(message, "E5M2")) << message;
  message = thrown_message<std::invalid_argument>(
      make(16, 16, ElementFormat::kE2M1, ScaleLayout::kTensor));
  EXPECT_TRUE(contains(message, "E2M1")) << message;
  message = thrown_message<std::invalid_argument>(
      make(16, 16, ElementFormat::kE4M3, ScaleLayout::kVec32Ue8m0));
  EXPECT_TRUE(contains(message, "Vec32Ue8m0")) << message;
}

TEST(Fp8OperandLayout, GemmNeedsContractionMultipleOf16) {
  const Fp8OperandLayout layout(257, 391, ElementFormat::kE4M3, ScaleLayout::kTensor);
  const uint8_t data[1] = {0};
  const float scale[1] = {1.0f};
  // Rowwise contracts along 391: refused. Columnwise contracts along 257: refused too.
  std::string message =
      thrown_message<Unsupported>([&] { require_fp8_gemm_operand(layout.rowwise(data, scale)); });
  EXPECT_TRUE(contains(message, "391")) << message;
  message = thrown_message<Unsupported>(
      [&] { require_fp8_gemm_operand(layout.columnwise(data, scale)); });
  EXPECT_TRUE(contains(message, "257")) << message;

  const Fp8OperandLayout aligned(100, 512, ElementFormat::kE4M3, ScaleLayout::kTensor);
  EXPECT_NO_THROW(require_fp8_gemm_operand(aligned.rowwise(data, scale)));
}

}  // namespace
}  // namespace gemmscope
