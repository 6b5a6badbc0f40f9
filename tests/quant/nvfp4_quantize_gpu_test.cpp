// quantize_nvfp4 and compute_nvfp4_amax on the GPU against the host reference, bit for bit:
// packed data, block scales and their padding, amaxes and tensor scales, for every role's
// options (1x16, 16x16, Hadamard, stochastic rounding) on odd sizes the format allows. Plus a
// statistical check that the GPU's stochastic rounding is unbiased.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/host_matrix.h"
#include "quant/nvfp4/dequantize.h"
#include "quant/nvfp4/detail/amax.h"
#include "quant/nvfp4/hadamard.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"
#include "quant/nvfp4/reference.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/block_scaled_test_support.h"

namespace gemmscope {
namespace {

using testing::CopyShape;
using testing::mismatches;
using testing::PoisonedBuffer;

struct GpuNvfp4 {
  std::vector<uint8_t> row_data, row_scale, col_data, col_scale;
  Nvfp4TensorScalars scalars;
  bool guards_intact;
};

GpuNvfp4 quantize_on_gpu(const std::vector<__nv_bfloat16>& input, const CopyShape& shape,
                         const Nvfp4Options& options) {
  const Nvfp4OperandLayout layout(shape.rows, shape.cols, shape.copies, options);
  const DeviceBuffer<__nv_bfloat16> device_input = testing::upload(input);
  PoisonedBuffer<uint8_t> row_data(has_rowwise(shape.copies) ? layout.data_bytes() : 0);
  PoisonedBuffer<uint8_t> row_scale(layout.rowwise_scale_bytes());
  PoisonedBuffer<uint8_t> col_data(has_columnwise(shape.copies) ? layout.data_bytes() : 0);
  PoisonedBuffer<uint8_t> col_scale(layout.columnwise_scale_bytes());
  PoisonedBuffer<Nvfp4TensorScalars> scalars(1);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  quantize_nvfp4(device_input.get(), shape.rows, shape.cols, shape.copies, options,
                 {row_data.get(), row_scale.get()}, {col_data.get(), col_scale.get()},
                 scalars.get(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  GpuNvfp4 result{row_data.contents(),  row_scale.contents(),  col_data.contents(),
                  col_scale.contents(), scalars.contents()[0], true};
  for (const auto* buffer : {&row_data, &row_scale, &col_data, &col_scale}) {
    result.guards_intact = result.guards_intact && buffer->guard_intact();
  }
  result.guards_intact = result.guards_intact && scalars.guard_intact();
  return result;
}

void expect_same_float(float actual, float expected, const char* what) {
  EXPECT_EQ(testing::describe(actual), testing::describe(expected)) << what;
}

void expect_matches_reference(const std::vector<__nv_bfloat16>& input, const CopyShape& shape,
                              const Nvfp4Options& options) {
  const GpuNvfp4 gpu = quantize_on_gpu(input, shape, options);
  const HostQuantizedTensor expected =
      reference_quantize_nvfp4_tensor(input, shape.rows, shape.cols, shape.copies, options);
  EXPECT_TRUE(gpu.guards_intact) << "a write past the end of a buffer";
  if (has_rowwise(shape.copies)) {
    EXPECT_EQ(mismatches(gpu.row_data, expected.rowwise.data), "") << "rowwise data";
    EXPECT_EQ(mismatches(gpu.row_scale, expected.rowwise.scale), "") << "rowwise scale";
    expect_same_float(gpu.scalars.amax_rowwise, expected.rowwise.amax, "rowwise amax");
    expect_same_float(gpu.scalars.tensor_scale_rowwise, expected.rowwise.tensor_scale,
                      "rowwise tensor scale");
  }
  if (has_columnwise(shape.copies)) {
    EXPECT_EQ(mismatches(gpu.col_data, expected.columnwise.data), "") << "columnwise data";
    EXPECT_EQ(mismatches(gpu.col_scale, expected.columnwise.scale), "") << "columnwise scale";
    expect_same_float(gpu.scalars.amax_columnwise, expected.columnwise.amax, "columnwise amax");
    expect_same_float(gpu.scalars.tensor_scale_columnwise, expected.columnwise.tensor_scale,
                      "columnwise tensor scale");
  }
}

Nvfp4Options options_of(int role) {
  return role < 0 ? Nvfp4Options{} : nvfp4_options_for(static_cast<Nvfp4Role>(role));
}

// Parameters: shape, role (-1: plain 1x16 round-to-nearest, no Hadamard).
class Nvfp4QuantizeGpu : public ::testing::TestWithParam<std::tuple<CopyShape, int>> {};

TEST_P(Nvfp4QuantizeGpu, MatchesReferenceBitForBit) {
  GEMMSCOPE_REQUIRE_GPU();
  const auto [shape, role] = GetParam();
  Nvfp4Options options = options_of(role);
  options.rounding_seed = 31337;
  expect_matches_reference(testing::random_bf16(shape.rows, shape.cols, 4321), shape, options);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizesAndRoles, Nvfp4QuantizeGpu,
    ::testing::Combine(::testing::Values(CopyShape{33, 64, OperandCopies::kRowwise},
                                         CopyShape{257, 96, OperandCopies::kRowwise},
                                         CopyShape{130, 160, OperandCopies::kRowwise},
                                         CopyShape{48, 80, OperandCopies::kBoth},
                                         CopyShape{272, 96, OperandCopies::kBoth},
                                         CopyShape{144, 160, OperandCopies::kBoth},
                                         CopyShape{160, 48, OperandCopies::kColumnwise},
                                         CopyShape{512, 1024, OperandCopies::kBoth},
                                         // More tiles than a GPU holds CTAs at once: each
                                         // CTA walks several (and the last tile row is 16).
                                         CopyShape{2064, 4160, OperandCopies::kRowwise},
                                         CopyShape{2064, 4160, OperandCopies::kBoth},
                                         CopyShape{2064, 4160, OperandCopies::kColumnwise}),
                       ::testing::Values(-1, static_cast<int>(Nvfp4Role::kActivation),
                                         static_cast<int>(Nvfp4Role::kWeight),
                                         static_cast<int>(Nvfp4Role::kGradient))));

// Blocks whose amax spans 2^0 .. 2^-47 of the tensor's: E4M3 block scales from normal down to
// subnormal and zero (multiplier FLT_MAX, elements saturated), for every role and both copies.
TEST(Nvfp4QuantizeGpu, BlocksOfEveryMagnitude) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 256;
  const int64_t cols = 192;
  std::vector<__nv_bfloat16> input = testing::random_bf16(rows, cols, 99);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int exponent = static_cast<int>((r / 4 + c / 16) % 48);
      const float value = __bfloat162float(input[r * cols + c]);
      input[r * cols + c] = __float2bfloat16(std::ldexp(value, -exponent));
    }
  }
  for (const int role :
       {-1, static_cast<int>(Nvfp4Role::kActivation), static_cast<int>(Nvfp4Role::kWeight),
        static_cast<int>(Nvfp4Role::kGradient)}) {
    SCOPED_TRACE(role);
    Nvfp4Options options = options_of(role);
    options.rounding_seed = 5;
    expect_matches_reference(input, {rows, cols, OperandCopies::kBoth}, options);
  }
}

TEST(Nvfp4QuantizeGpu, NonFiniteBlocks) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 48;
  const int64_t cols = 64;
  std::vector<__nv_bfloat16> input = testing::random_bf16(rows, cols, 88);
  input[5 * cols + 20] = __float2bfloat16(std::numeric_limits<float>::infinity());
  input[40 * cols + 3] = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  for (const int role :
       {-1, static_cast<int>(Nvfp4Role::kActivation), static_cast<int>(Nvfp4Role::kWeight),
        static_cast<int>(Nvfp4Role::kGradient)}) {
    const GpuNvfp4 gpu =
        quantize_on_gpu(input, {rows, cols, OperandCopies::kBoth}, options_of(role));
    const HostQuantizedTensor expected =
        reference_quantize_nvfp4_tensor(input, rows, cols, OperandCopies::kBoth, options_of(role));
    EXPECT_EQ(mismatches(gpu.row_data, expected.rowwise.data), "") << role;
    EXPECT_EQ(mismatches(gpu.row_scale, expected.rowwise.scale), "") << role;
    EXPECT_EQ(mismatches(gpu.col_data, expected.columnwise.data), "") << role;
    EXPECT_EQ(mismatches(gpu.col_scale, expected.columnwise.scale), "") << role;
    EXPECT_TRUE(std::isnan(gpu.scalars.amax_rowwise));
    EXPECT_EQ(gpu.scalars.tensor_scale_rowwise, 1.0f);
  }
}

// The amax kernel resets its result in the stream: a second run on smaller data reports the
// smaller amax, not the maximum of both runs.
TEST(Nvfp4AmaxGpu, ResetsInStreamAndMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 64;
  const int64_t cols = 2048;
  std::vector<__nv_bfloat16> large = testing::random_bf16(rows, cols, 3);
  large[17 * cols + 1500] = __float2bfloat16(5000.0f);
  std::vector<__nv_bfloat16> small(rows * cols);
  for (size_t i = 0; i < small.size(); ++i) {
    small[i] = __float2bfloat16(__bfloat162float(large[i]) * 1e-3f);
  }
  small[17 * cols + 1500] = __float2bfloat16(0.0f);
  const uint16_t mask = hadamard_sign_mask(kHadamardSignSeed);
  PoisonedBuffer<Nvfp4TensorScalars> scalars(1);
  for (const auto* input : {&large, &small}) {
    const DeviceBuffer<__nv_bfloat16> device_input = testing::upload(*input);
    compute_nvfp4_amax(device_input.get(), rows, cols, true, mask, scalars.get(), nullptr);
    const Nvfp4TensorScalars result = scalars.contents()[0];
    const std::vector<float> values = widen_bf16(*input);
    const HostQuantizedCopy rowwise =
        reference_quantize_nvfp4(values, rows, cols, Nvfp4BlockShape::k1x16, {});
    const HostQuantizedCopy columnwise = reference_quantize_nvfp4(
        reference_hadamard_rows(transposed(values, rows, cols), cols, rows, mask), cols, rows,
        Nvfp4BlockShape::k1x16, {});
    expect_same_float(result.amax_rowwise, rowwise.amax, "amax");
    expect_same_float(result.amax_columnwise, columnwise.amax, "post-Hadamard amax");
  }
}

// Every row block and every column block holds one 6.0 (so each block's scale maps E2M1 values
// to themselves) and otherwise `value`, which lies between two E2M1 neighbours. Stochastic
// rounding's mean over all those elements must come back to `value`; round-to-nearest would
// not.
TEST(Nvfp4QuantizeGpu, StochasticRoundingIsUnbiased) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 512;
  const int64_t cols = 1024;
  for (const float value : {1.2f, 2.3f, 4.7f}) {
    std::vector<__nv_bfloat16> input(rows * cols, __float2bfloat16(value));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        if (r % 16 == 0 || c % 16 == 0)
          input[r * cols + c] = __float2bfloat16(6.0f);
      }
    }
    const float stored = __bfloat162float(input[1 * cols + 1]);
    Nvfp4Options options;
    options.stochastic_rounding = true;
    options.rounding_seed = 7;
    const testing::GpuNvfp4Operand operand(input, {rows, cols, OperandCopies::kBoth}, options);
    for (const bool columnwise : {false, true}) {
      const QuantizedTensor copy = operand.copy(columnwise);
      const std::vector<float> host = testing::dequantized(copy, dequantize_nvfp4);
      double sum = 0.0;
      int64_t count = 0;
      for (int64_t r = 0; r < copy.rows; ++r) {
        for (int64_t c = 0; c < copy.cols; ++c) {
          if (r % 16 == 0 || c % 16 == 0)
            continue;
          sum += host[r * copy.cols + c];
          ++count;
        }
      }
      const double gap = stored < 2.0f ? 0.5 : stored < 4.0f ? 1.0 : 2.0;
      const double bound =
          gap * (6.0 / (2.0 * std::sqrt(static_cast<double>(count))) + 1.0 / 65536);
      EXPECT_NEAR(sum / count, stored, bound) << "value " << stored << " columnwise " << columnwise;
    }
  }
}

}  // namespace
}  // namespace gemmscope
