// Nvfp4OperandLayout: buffer sizes, views (with the tensor scale), refused shapes; and the
// argument checks of quantize_nvfp4 and compute_nvfp4_amax, which run on the host.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "quant/nvfp4/detail/amax.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

TEST(Nvfp4OperandLayout, SizesAndViews) {
  const Nvfp4OperandLayout layout(48, 80, OperandCopies::kBoth, {});
  EXPECT_EQ(layout.data_bytes(), 48 * 80 / 2);
  EXPECT_EQ(layout.rowwise_scale_bytes(), 128 * 8);     // 48 -> 128 rows, 5 -> 8 scale columns
  EXPECT_EQ(layout.columnwise_scale_bytes(), 128 * 4);  // 80 -> 128 rows, 3 -> 4 scale columns
  EXPECT_EQ(layout.buffer_count(), 5);

  const uint8_t* data = reinterpret_cast<const uint8_t*>(0x1000);
  const uint8_t* scale = reinterpret_cast<const uint8_t*>(0x2000);
  const auto* scalars = reinterpret_cast<const Nvfp4TensorScalars*>(0x3000);
  const QuantizedTensor rowwise = layout.rowwise(data, scale, scalars);
  EXPECT_EQ(rowwise.format, ElementFormat::kE2M1);
  EXPECT_EQ(rowwise.scale_layout, ScaleLayout::kVec16Ue4m3);
  EXPECT_EQ(rowwise.rows, 48);
  EXPECT_EQ(rowwise.cols, 80);
  EXPECT_EQ(rowwise.tensor_scale, &scalars->tensor_scale_rowwise);
  const QuantizedTensor columnwise = layout.columnwise(data, scale, scalars);
  EXPECT_EQ(columnwise.rows, 80);
  EXPECT_EQ(columnwise.cols, 48);
  EXPECT_EQ(columnwise.tensor_scale, &scalars->tensor_scale_columnwise);
  EXPECT_THROW(layout.rowwise(data, scale, nullptr), std::invalid_argument);
}

TEST(Nvfp4OperandLayout, RefusesShapesAndOptions) {
  std::string message = thrown_message<std::invalid_argument>(
      [] { Nvfp4OperandLayout(32, 40, OperandCopies::kRowwise, {}); });
  EXPECT_TRUE(contains(message, "16") && contains(message, "40")) << message;
  message = thrown_message<std::invalid_argument>([] {
    Nvfp4OperandLayout(24, 32, OperandCopies::kBoth, nvfp4_options_for(Nvfp4Role::kGradient));
  });
  EXPECT_TRUE(contains(message, "Hadamard") && contains(message, "24")) << message;
  const Nvfp4OperandLayout rowwise_only(33, 32, OperandCopies::kRowwise,
                                        nvfp4_options_for(Nvfp4Role::kWeight));
  EXPECT_EQ(rowwise_only.columnwise_scale_bytes(), 0);
  EXPECT_EQ(rowwise_only.buffer_count(), 3);
  EXPECT_THROW(rowwise_only.columnwise(nullptr, nullptr, nullptr), std::logic_error);
}

TEST(Nvfp4Quantize, ChecksItsArgumentsOnTheHost) {
  auto* input = reinterpret_cast<const __nv_bfloat16*>(0x10000);
  auto* buffer = reinterpret_cast<uint8_t*>(0x20000);
  auto* scalars = reinterpret_cast<Nvfp4TensorScalars*>(0x30000);
  const Nvfp4CopyBuffers good{buffer, buffer};
  std::string message = thrown_message<std::invalid_argument>([&] {
    quantize_nvfp4(input, 32, 32, OperandCopies::kRowwise, {}, Nvfp4CopyBuffers{}, good, scalars,
                   nullptr);
  });
  EXPECT_TRUE(contains(message, "rowwise data") && contains(message, "null")) << message;
  message = thrown_message<std::invalid_argument>([&] {
    quantize_nvfp4(input, 32, 32, OperandCopies::kRowwise, {}, good, {}, nullptr, nullptr);
  });
  EXPECT_TRUE(contains(message, "scalars") && contains(message, "null")) << message;
  message = thrown_message<std::invalid_argument>(
      [&] { compute_nvfp4_amax(input, 40, 32, true, 0, scalars, nullptr); });
  EXPECT_TRUE(contains(message, "Hadamard") && contains(message, "40")) << message;
}

}  // namespace
}  // namespace gemmscope
