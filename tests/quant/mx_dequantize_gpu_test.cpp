// dequantize_mxfp8 (FP32) and dequantize_mxfp8_to_bf16 on the GPU against the host reference,
// bit for bit, on operands with non-uniform scales; the BF16 output is exact; and a
// GPU quantize -> dequantize round trip stays within E4M3's rounding of the input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/host_matrix.h"
#include "quant/mxfp8/dequantize.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"
#include "quant/mxfp8/reference.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/block_scaled_test_support.h"

namespace gemmscope {
namespace {

using testing::mismatches;
using testing::PoisonedBuffer;

TEST(Mxfp8DequantizeGpu, MatchesReferenceAndBf16IsExact) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 130;
  const int64_t cols = 192;
  std::vector<float> values = widen_bf16(testing::random_bf16(rows, cols, 55));
  values[7 * cols + 100] = std::numeric_limits<float>::quiet_NaN();  // one NaN block
  const HostQuantizedCopy copy = reference_quantize_mxfp8(values, rows, cols);
  const DeviceBuffer<uint8_t> data = testing::upload(copy.data);
  const DeviceBuffer<uint8_t> scale = testing::upload(copy.scale);
  const QuantizedTensor operand =
      Mxfp8OperandLayout(rows, cols, OperandCopies::kRowwise).rowwise(data.get(), scale.get());
  const std::vector<float> expected = reference_dequantize_mxfp8(copy);

  PoisonedBuffer<float> fp32(rows * cols);
  dequantize_mxfp8(operand, fp32.get(), nullptr);
  EXPECT_EQ(mismatches(fp32.contents(), expected, /*nan_equal=*/true), "");
  EXPECT_TRUE(fp32.guard_intact());

  PoisonedBuffer<__nv_bfloat16> bf16(rows * cols);
  dequantize_mxfp8_to_bf16(operand, bf16.get(), nullptr);
  const std::vector<float> widened = widen_bf16(bf16.contents());
  EXPECT_EQ(mismatches(widened, expected, /*nan_equal=*/true), "") << "BF16 is not exact";
  EXPECT_TRUE(bf16.guard_intact());
}

TEST(Mxfp8DequantizeGpu, RoundTripOfTheColumnwiseCopy) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 96;
  const int64_t cols = 64;
  const std::vector<__nv_bfloat16> input = testing::random_bf16(rows, cols, 66);
  const testing::GpuMxfp8Operand operand(input, {rows, cols, OperandCopies::kColumnwise});
  const std::vector<float> result = testing::dequantized(operand.columnwise(), dequantize_mxfp8);
  const std::vector<float> original = transposed(widen_bf16(input), rows, cols);
  // |error| <= 2^-4 |x| in E4M3's normal range; below it, half E4M3's subnormal spacing
  // (2^-10) times the block scale, which is at most 2 * amax / 448 for the block.
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t block = 0; block < rows / 32; ++block) {
      float amax = 0.0f;
      for (int k = 0; k < 32; ++k)
        amax = std::max(amax, std::fabs(original[c * rows + block * 32 + k]));
      for (int k = 0; k < 32; ++k) {
        const int64_t i = c * rows + block * 32 + k;
        const float bound = std::max(std::fabs(original[i]) / 16.0f, amax / 224.0f / 1024.0f);
        EXPECT_LE(std::fabs(result[i] - original[i]), bound) << c << ", " << block * 32 + k;
      }
    }
  }
}

TEST(Mxfp8Dequantize, RefusesOtherOperands) {
  QuantizedTensor operand =
      testing::stand_in_operand(ElementFormat::kE2M1, ScaleLayout::kVec32Ue8m0);
  auto* out = reinterpret_cast<float*>(0x3000);
  std::string message = testing::thrown_message<std::invalid_argument>(
      [&] { dequantize_mxfp8(operand, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "E4M3") && testing::contains(message, "E2M1")) << message;
  operand.format = ElementFormat::kE4M3;
  operand.cols = 48;
  message = testing::thrown_message<std::invalid_argument>(
      [&] { dequantize_mxfp8(operand, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "48")) << message;
}

}  // namespace
}  // namespace gemmscope
