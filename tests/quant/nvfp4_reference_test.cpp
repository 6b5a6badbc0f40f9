// The host NVFP4 reference on blocks checked by hand: two-level scales, an outlier that
// flattens its block, 16x16 weight blocks, the post-Hadamard amax of the columnwise copy, the
// non-finite policy, and the shapes and options it refuses.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/nvfp4/e2m1.h"
#include "quant/nvfp4/hadamard.h"
#include "quant/nvfp4/reference.h"
#include "quant/swizzled_scale_layout.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

const Nvfp4Rounding kNearest{};

// One row, two blocks: [100, 1 x 15] and [1 x 16]. Tensor amax 100, so S_enc = 2688 / 100 =
// 26.88 and tensor_scale = 1 / 26.88.
//   block 0: s = E4M3(100 * 26.88 / 6 = 448) = 448 (0x7E); m = 26.88 / 448 = 0.06:
//            100 -> 6 (code 7), each 1 -> 0.06 -> 0 (code 0). The outlier flattens its block.
//   block 1: s = E4M3(1 * 4.48) = 4.5 (0x49; 4.0 is farther); m = 26.88 / 4.5 = 5.97:
//            each 1 -> 5.97 -> 6 (code 7), read back as 6 * 4.5 / 26.88 = 1.0045.
TEST(Nvfp4Reference, OutlierBlockHandChecked) {
  std::vector<float> values(32, 1.0f);
  values[0] = 100.0f;
  const HostQuantizedCopy copy =
      reference_quantize_nvfp4(values, 1, 32, Nvfp4BlockShape::k1x16, kNearest);
  EXPECT_EQ(copy.amax, 100.0f);
  EXPECT_EQ(copy.tensor_scale, 1.0f / (2688.0f / 100.0f));
  ASSERT_EQ(copy.data.size(), 16u);
  EXPECT_EQ(copy.data[0], 0x07);  // codes 7 (low nibble, element 0) and 0
  for (int i = 1; i < 8; ++i)
    EXPECT_EQ(copy.data[i], 0x00) << i;
  for (int i = 8; i < 16; ++i)
    EXPECT_EQ(copy.data[i], 0x77) << i;
  ASSERT_EQ(copy.scale.size(), 512u);
  EXPECT_EQ(copy.scale[0], 0x7E);
  EXPECT_EQ(copy.scale[1], 0x49);

  const std::vector<float> back = reference_dequantize_nvfp4(copy, true);
  EXPECT_NEAR(back[0], 100.0f, 1e-4);
  EXPECT_EQ(back[1], 0.0f);
  EXPECT_NEAR(back[16], 6.0f * 4.5f / 26.88f, 1e-6);
  // Without the tensor scale (what the emulated GEMM reads): element * block scale, exactly.
  const std::vector<float> unscaled = reference_dequantize_nvfp4(copy, false);
  EXPECT_EQ(unscaled[0], 6.0f * 448.0f);
  EXPECT_EQ(unscaled[16], 6.0f * 4.5f);
}

// A 16x16 weight block shares one scale across its 16 rows: an outlier in row 5 sets the scale
// of every row, where 1x16 blocks confine it to row 5.
TEST(Nvfp4Reference, SixteenBySixteenBlocksShareTheirScale) {
  std::vector<float> values(16 * 16, 1.0f);
  values[5 * 16 + 3] = 100.0f;
  const HostQuantizedCopy two_d =
      reference_quantize_nvfp4(values, 16, 16, Nvfp4BlockShape::k16x16, kNearest);
  const HostQuantizedCopy one_d =
      reference_quantize_nvfp4(values, 16, 16, Nvfp4BlockShape::k1x16, kNearest);
  const SwizzledScaleLayout layout(16, 1);
  for (int r = 0; r < 16; ++r) {
    EXPECT_EQ(two_d.scale[layout.offset(r, 0)], 0x7E) << r;
    EXPECT_EQ(one_d.scale[layout.offset(r, 0)], r == 5 ? 0x7E : 0x49) << r;
    if (r != 5) {
      for (int b = 0; b < 8; ++b)
        EXPECT_EQ(two_d.data[r * 8 + b], 0x00) << r;  // flattened
      for (int b = 0; b < 8; ++b)
        EXPECT_EQ(one_d.data[r * 8 + b], 0x77) << r;
    }
  }
  // A 16x16 block at the bottom edge holds the rows that remain.
  std::vector<float> ragged(20 * 16, 1.0f);
  ragged[17 * 16] = 8.0f;
  const HostQuantizedCopy edge =
      reference_quantize_nvfp4(ragged, 20, 16, Nvfp4BlockShape::k16x16, kNearest);
  const SwizzledScaleLayout edge_layout(20, 1);
  EXPECT_EQ(edge.scale[edge_layout.offset(16, 0)], edge.scale[edge_layout.offset(19, 0)]);
  EXPECT_NE(edge.scale[edge_layout.offset(0, 0)], edge.scale[edge_layout.offset(16, 0)]);
}

// The columnwise copy of a Wgrad operand is Hadamard-transformed first, and its amax is that of
// the transformed values (TransformerEngine's post-RHT amax). One token of one feature holds
// 16, the rest 0: the transform spreads it to ±4 over the 16 tokens of its group.
TEST(Nvfp4Reference, HadamardColumnwiseCopyUsesThePostTransformAmax) {
  std::vector<__nv_bfloat16> input(16 * 16, __float2bfloat16(0.0f));
  input[0] = __float2bfloat16(16.0f);
  Nvfp4Options options;
  options.columnwise_hadamard = true;
  const HostQuantizedTensor tensor =
      reference_quantize_nvfp4_tensor(input, 16, 16, OperandCopies::kBoth, options);
  EXPECT_EQ(tensor.rowwise.amax, 16.0f);
  EXPECT_EQ(tensor.columnwise.amax, 4.0f);
  // Column 0 becomes 4 * s_0 * H[j][0] = 4 * s_0 for every token j: each is the block's amax,
  // S_enc = 2688 / 4 = 672, block scale 448, multiplier 1.5: code 7 with the sign s_0.
  const bool negative = (hadamard_sign_mask(options.hadamard_seed) & 1) != 0;
  const uint8_t code = negative ? 0xF : 0x7;
  for (int b = 0; b < 8; ++b)
    EXPECT_EQ(tensor.columnwise.data[b], pack_e2m1_pair(code, code));
  EXPECT_EQ(tensor.columnwise.scale[0], 0x7E);
  // The rowwise copy is not transformed: 16 stays alone in its block.
  EXPECT_EQ(tensor.rowwise.data[0], 0x07);
}

TEST(Nvfp4Reference, ZeroTensor) {
  const HostQuantizedCopy copy = reference_quantize_nvfp4(std::vector<float>(16 * 32, 0.0f), 16, 32,
                                                          Nvfp4BlockShape::k1x16, kNearest);
  EXPECT_EQ(copy.amax, 0.0f);
  EXPECT_EQ(copy.tensor_scale, 1.0f);  // S_enc falls back to 1
  for (uint8_t byte : copy.data)
    EXPECT_EQ(byte, 0);
  for (uint8_t byte : copy.scale)
    EXPECT_EQ(byte, 0);
}

TEST(Nvfp4Reference, NonFiniteBlocksReadBackAsNaN) {
  std::vector<float> values(2 * 32, 1.0f);
  values[3] = std::numeric_limits<float>::infinity();
  values[32 + 20] = std::numeric_limits<float>::quiet_NaN();
  const HostQuantizedCopy copy =
      reference_quantize_nvfp4(values, 2, 32, Nvfp4BlockShape::k1x16, kNearest);
  EXPECT_TRUE(std::isnan(copy.amax));
  EXPECT_EQ(copy.tensor_scale, 1.0f);
  const SwizzledScaleLayout layout(2, 2);
  EXPECT_EQ(copy.scale[layout.offset(0, 0)], 0x7F);
  EXPECT_EQ(copy.scale[layout.offset(1, 1)], 0x7F);
  EXPECT_NE(copy.scale[layout.offset(0, 1)], 0x7F);
  for (int b = 0; b < 8; ++b)
    EXPECT_EQ(copy.data[b], 0x00);
  const std::vector<float> back = reference_dequantize_nvfp4(copy, true);
  EXPECT_TRUE(std::isnan(back[0]));
  EXPECT_TRUE(std::isnan(back[32 + 16]));
  EXPECT_FALSE(std::isnan(back[16]));
}

TEST(Nvfp4Reference, StochasticRoundingIsReproducibleAndPerCopy) {
  const std::vector<__nv_bfloat16> input = testing::random_bf16(32, 48, 5);
  Nvfp4Options options;
  options.stochastic_rounding = true;
  options.rounding_seed = 99;
  const HostQuantizedTensor a =
      reference_quantize_nvfp4_tensor(input, 32, 48, OperandCopies::kBoth, options);
  const HostQuantizedTensor b =
      reference_quantize_nvfp4_tensor(input, 32, 48, OperandCopies::kBoth, options);
  EXPECT_EQ(a.rowwise.data, b.rowwise.data);
  EXPECT_EQ(a.columnwise.data, b.columnwise.data);
  options.rounding_seed = 100;
  const HostQuantizedTensor c =
      reference_quantize_nvfp4_tensor(input, 32, 48, OperandCopies::kBoth, options);
  EXPECT_NE(a.rowwise.data, c.rowwise.data);
  EXPECT_EQ(a.rowwise.scale, c.rowwise.scale);  // the scales do not depend on the rounding
}

TEST(Nvfp4Reference, RefusesShapesAndOptionsTheFormatCannotTake) {
  const std::vector<__nv_bfloat16> input(64 * 64);
  auto message_for = [&](int64_t rows, int64_t cols, OperandCopies copies,
                         const Nvfp4Options& options) {
    return thrown_message<std::invalid_argument>(
        [&] { reference_quantize_nvfp4_tensor(input, rows, cols, copies, options); });
  };
  std::string message = message_for(16, 24, OperandCopies::kRowwise, {});
  EXPECT_TRUE(contains(message, "NVFP4") && contains(message, "24")) << message;
  message = message_for(40, 16, OperandCopies::kColumnwise, {});
  EXPECT_TRUE(contains(message, "rows") && contains(message, "40")) << message;
  message = message_for(-1, 16, OperandCopies::kRowwise, {});
  EXPECT_TRUE(contains(message, "positive") && contains(message, "-1")) << message;
  Nvfp4Options hadamard;
  hadamard.columnwise_hadamard = true;
  message = message_for(40, 16, OperandCopies::kBoth, hadamard);
  EXPECT_TRUE(contains(message, "Hadamard") && contains(message, "40")) << message;
  hadamard.block_shape = Nvfp4BlockShape::k16x16;
  message = message_for(32, 16, OperandCopies::kBoth, hadamard);
  EXPECT_TRUE(contains(message, "Hadamard") && contains(message, "16x16")) << message;
  EXPECT_NO_THROW(reference_quantize_nvfp4_tensor(std::vector<__nv_bfloat16>(33 * 16), 33, 16,
                                                  OperandCopies::kRowwise, {}));
}

TEST(Nvfp4Options, RolesFollowTransformerEngine) {
  const Nvfp4Options x = nvfp4_options_for(Nvfp4Role::kActivation);
  EXPECT_EQ(x.block_shape, Nvfp4BlockShape::k1x16);
  EXPECT_TRUE(x.columnwise_hadamard);
  EXPECT_FALSE(x.stochastic_rounding);
  const Nvfp4Options w = nvfp4_options_for(Nvfp4Role::kWeight);
  EXPECT_EQ(w.block_shape, Nvfp4BlockShape::k16x16);
  EXPECT_FALSE(w.columnwise_hadamard);
  EXPECT_FALSE(w.stochastic_rounding);
  const Nvfp4Options dy = nvfp4_options_for(Nvfp4Role::kGradient);
  EXPECT_EQ(dy.block_shape, Nvfp4BlockShape::k1x16);
  EXPECT_TRUE(dy.columnwise_hadamard);
  EXPECT_TRUE(dy.stochastic_rounding);
}

}  // namespace
}  // namespace gemmscope
