// dequantize_nvfp4 (FP32, with the tensor scale) and dequantize_nvfp4_to_bf16 (without it) on
// the GPU against the host reference, bit for bit, on operands with non-uniform block scales;
// the BF16 output is exact; and a GPU quantize -> dequantize round trip is close to its input.

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/host_matrix.h"
#include "quant/nvfp4/dequantize.h"
#include "quant/nvfp4/detail/scaling.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"
#include "quant/nvfp4/reference.h"
#include "quant/swizzled_scale_layout.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/block_scaled_test_support.h"

namespace gemmscope {
namespace {

using testing::mismatches;
using testing::PoisonedBuffer;

TEST(Nvfp4DequantizeGpu, MatchesReferenceAndBf16IsExact) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 130;
  const int64_t cols = 96;
  const std::vector<float> values = widen_bf16(testing::random_bf16(rows, cols, 56));
  HostQuantizedCopy copy = reference_quantize_nvfp4(values, rows, cols, Nvfp4BlockShape::k1x16, {});
  // One block as a quantizer marks a block that held inf or NaN.
  copy.scale[SwizzledScaleLayout(rows, cols / 16).offset(9, 2)] = kNvfp4NanScale;
  const DeviceBuffer<uint8_t> data = testing::upload(copy.data);
  const DeviceBuffer<uint8_t> scale = testing::upload(copy.scale);
  Nvfp4TensorScalars host_scalars{copy.amax, copy.amax, copy.tensor_scale, copy.tensor_scale};
  const DeviceBuffer<Nvfp4TensorScalars> scalars =
      testing::upload(std::vector<Nvfp4TensorScalars>{host_scalars});
  const QuantizedTensor operand = Nvfp4OperandLayout(rows, cols, OperandCopies::kRowwise, {})
                                      .rowwise(data.get(), scale.get(), scalars.get());

  PoisonedBuffer<float> fp32(rows * cols);
  dequantize_nvfp4(operand, fp32.get(), nullptr);
  EXPECT_EQ(mismatches(fp32.contents(), reference_dequantize_nvfp4(copy, true), true), "");
  EXPECT_TRUE(fp32.guard_intact());

  PoisonedBuffer<__nv_bfloat16> bf16(rows * cols);
  dequantize_nvfp4_to_bf16(operand, bf16.get(), nullptr);
  EXPECT_EQ(mismatches(widen_bf16(bf16.contents()), reference_dequantize_nvfp4(copy, false), true),
            "")
      << "BF16 is not exact or applied the tensor scale";
  EXPECT_TRUE(bf16.guard_intact());
}

// NVFP4 is coarse: the round trip of normal data is judged as a whole (relative Frobenius
// error), per copy and with 16x16 blocks too.
TEST(Nvfp4DequantizeGpu, RoundTripIsClose) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 128;
  const int64_t cols = 256;
  const std::vector<__nv_bfloat16> input = testing::random_bf16(rows, cols, 67);
  const std::vector<float> original = widen_bf16(input);
  for (const Nvfp4Role role : {Nvfp4Role::kActivation, Nvfp4Role::kWeight}) {
    Nvfp4Options options = nvfp4_options_for(role);
    options.columnwise_hadamard = false;  // compare the columnwise copy with the plain transpose
    const testing::GpuNvfp4Operand operand(input, {rows, cols, OperandCopies::kBoth}, options);
    for (const bool columnwise : {false, true}) {
      const std::vector<float> result =
          testing::dequantized(operand.copy(columnwise), dequantize_nvfp4);
      const std::vector<float> reference = columnwise ? transposed(original, rows, cols) : original;
      double error = 0.0;
      double norm = 0.0;
      for (size_t i = 0; i < result.size(); ++i) {
        error += std::pow(static_cast<double>(result[i]) - reference[i], 2);
        norm += std::pow(static_cast<double>(reference[i]), 2);
      }
      // E2M1's worst relative step is 1/3 (between 1 and 1.5 with ties, 4 and 6); on normal
      // data the whole-tensor error is far smaller.
      EXPECT_LT(std::sqrt(error / norm), 0.2) << static_cast<int>(role) << " " << columnwise;
    }
  }
}

TEST(Nvfp4Dequantize, RefusesOtherOperands) {
  QuantizedTensor operand =
      testing::stand_in_operand(ElementFormat::kE2M1, ScaleLayout::kVec16Ue4m3);
  auto* out = reinterpret_cast<float*>(0x3000);
  std::string message = testing::thrown_message<std::invalid_argument>(
      [&] { dequantize_nvfp4(operand, out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "tensor_scale")) << message;
  operand.scale_layout = ScaleLayout::kVec32Ue8m0;
  auto* bf16_out = reinterpret_cast<__nv_bfloat16*>(0x3000);
  message = testing::thrown_message<std::invalid_argument>(
      [&] { dequantize_nvfp4_to_bf16(operand, bf16_out, nullptr); });
  EXPECT_TRUE(testing::contains(message, "Vec16Ue4m3")) << message;
}

}  // namespace
}  // namespace gemmscope
