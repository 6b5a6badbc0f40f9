// quantize_mxfp8 on the GPU against the host reference, bit for bit: data, scales and scale
// padding, on odd sizes the format allows, into buffers poisoned with 0xFF and guarded at
// their ends.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"
#include "quant/mxfp8/reference.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/block_scaled_test_support.h"

namespace gemmscope {
namespace {

using testing::CopyShape;
using testing::mismatches;
using testing::PoisonedBuffer;

// Runs quantize_mxfp8 and expects every byte of every requested buffer to equal the reference.
void expect_matches_reference(const std::vector<__nv_bfloat16>& input, const CopyShape& shape) {
  const Mxfp8OperandLayout layout(shape.rows, shape.cols, shape.copies);
  const DeviceBuffer<__nv_bfloat16> device_input = testing::upload(input);
  const bool rowwise = has_rowwise(shape.copies);
  const bool columnwise = has_columnwise(shape.copies);
  PoisonedBuffer<uint8_t> row_data(rowwise ? layout.data_bytes() : 0);
  PoisonedBuffer<uint8_t> row_scale(layout.rowwise_scale_bytes());
  PoisonedBuffer<uint8_t> col_data(columnwise ? layout.data_bytes() : 0);
  PoisonedBuffer<uint8_t> col_scale(layout.columnwise_scale_bytes());
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  quantize_mxfp8(device_input.get(), shape.rows, shape.cols, shape.copies,
                 {row_data.get(), row_scale.get()}, {col_data.get(), col_scale.get()}, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));

  const HostQuantizedTensor expected =
      reference_quantize_mxfp8_tensor(input, shape.rows, shape.cols, shape.copies);
  if (rowwise) {
    EXPECT_EQ(mismatches(row_data.contents(), expected.rowwise.data), "") << "rowwise data";
    EXPECT_EQ(mismatches(row_scale.contents(), expected.rowwise.scale), "") << "rowwise scale";
  }
  if (columnwise) {
    EXPECT_EQ(mismatches(col_data.contents(), expected.columnwise.data), "") << "columnwise data";
    EXPECT_EQ(mismatches(col_scale.contents(), expected.columnwise.scale), "")
        << "columnwise scale";
  }
  for (const auto* buffer : {&row_data, &row_scale, &col_data, &col_scale}) {
    EXPECT_TRUE(buffer->guard_intact()) << "a write past the end of a buffer";
  }
}

class Mxfp8QuantizeGpu : public ::testing::TestWithParam<CopyShape> {};

TEST_P(Mxfp8QuantizeGpu, MatchesReferenceBitForBit) {
  GEMMSCOPE_REQUIRE_GPU();
  const CopyShape shape = GetParam();
  expect_matches_reference(testing::random_bf16(shape.rows, shape.cols, 1234), shape);
}

INSTANTIATE_TEST_SUITE_P(OddSizes, Mxfp8QuantizeGpu,
                         ::testing::Values(CopyShape{33, 64, OperandCopies::kRowwise},
                                           CopyShape{257, 96, OperandCopies::kRowwise},
                                           CopyShape{130, 160, OperandCopies::kRowwise},
                                           CopyShape{96, 160, OperandCopies::kBoth},
                                           CopyShape{160, 96, OperandCopies::kColumnwise},
                                           CopyShape{320, 224, OperandCopies::kBoth},
                                           CopyShape{32, 32, OperandCopies::kBoth},
                                           CopyShape{1024, 2048, OperandCopies::kBoth}));

// Blocks holding inf or NaN follow the reference's policy in both copies.
TEST(Mxfp8QuantizeGpu, NonFiniteBlocks) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t rows = 64;
  const int64_t cols = 96;
  std::vector<__nv_bfloat16> input = testing::random_bf16(rows, cols, 77);
  input[3 * cols + 40] = __float2bfloat16(std::numeric_limits<float>::infinity());
  input[50 * cols + 7] = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  input[10 * cols + 90] = __float2bfloat16(-std::numeric_limits<float>::infinity());
  expect_matches_reference(input, {rows, cols, OperandCopies::kBoth});
}

}  // namespace
}  // namespace gemmscope
