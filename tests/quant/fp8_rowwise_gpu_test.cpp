// GPU tests of the FP8 rowwise quantizer (quant/fp8/rowwise.h) and of the tensorwise cast that
// writes the same outputs (quant/fp8/tensorwise_outer_vec.h) against their host references, bit
// for bit: data and scales of each copy, on odd and aligned shapes (rows and columns that end in
// partial tiles, columns that are not a multiple of 16: the cast's scalar path), lines whose
// magnitudes differ (so a scale read from the wrong line shows), lines of zeros, NaN and infinity,
// into poisoned and guarded buffers; the reference's own scale math is pinned to hand-checked
// values, which needs no GPU.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/reference.h"
#include "quant/fp8/rowwise.h"
#include "quant/fp8/rowwise_reference.h"
#include "quant/fp8/tensorwise_outer_vec.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::Shape;

// The rowwise copy alone takes the one-pass cast where a row is whole 16-byte chunks: one warp a
// row up to 2048 columns (1x16 to 4096x1536), two (70x3000), four (5x6144), eight (9x16384);
// 3x16392 is past it, and 1x1, 257x391, 333x100, 130x4, 130x8195 are not whole chunks. With
// columnwise copies, the amax pass's blocks take 2 column tiles (300x4104, 33 of them, the last
// alone), 4 (260x12288; 9x16384; 130x8195, 65 tiles), or 1.
const Shape kShapes[] = {{1, 1},       {1, 16},     {17, 272},    {128, 128},
                         {257, 391},   {333, 100},  {1000, 2048}, {130, 4},
                         {4096, 1536}, {9, 16384},  {3, 16392},   {70, 3000},
                         {5, 6144},    {300, 4104}, {130, 8195},  {260, 12288}};

// random_bf16 times 2^((r + 3c) % 9 - 4): neighbouring rows and columns get other scales.
std::vector<__nv_bfloat16> lines_of_other_magnitudes(const Shape& shape, uint32_t seed) {
  std::vector<__nv_bfloat16> values = testing::random_bf16(shape.rows, shape.cols, seed);
  for (int64_t r = 0; r < shape.rows; ++r) {
    for (int64_t c = 0; c < shape.cols; ++c) {
      __nv_bfloat16& v = values[r * shape.cols + c];
      v = __float2bfloat16(__bfloat162float(v) *
                           std::ldexp(1.0f, static_cast<int>((r + 3 * c) % 9) - 4));
    }
  }
  return values;
}

// The two casts that write FP8Rowwise's outputs (E4M3 copies, an FP32 scale_inv a line of each),
// each with its host reference and the workspace it needs.
struct LineScaledCast {
  void (*quantize)(const __nv_bfloat16*, int64_t, int64_t, const Fp8RowwiseTargets&, void*,
                   cudaStream_t);
  size_t (*workspace_bytes)(int64_t rows, int64_t cols);
  void (*reference)(const __nv_bfloat16*, int64_t, int64_t, uint8_t*, float*, uint8_t*, float*);
};

// quantize_fp8_tensorwise_outer_vec's reference, from the references it is made of: the tensor's
// amax (reference_amax), its power-of-2 E4M3 scale (scale_from_amax), the tensorwise cast
// (reference_cast_fp8), and that scale's inverse in every entry of each copy's vector.
void reference_tensorwise_outer_vec(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                                    uint8_t* rowwise, float* rowwise_scale_inv, uint8_t* columnwise,
                                    float* columnwise_scale_inv) {
  const float scale =
      scale_from_amax(reference_amax(input, rows * cols), kE4M3MaxFinite, /*power_of_2=*/true);
  reference_cast_fp8(input, rows, cols, ElementFormat::kE4M3, scale, rowwise, columnwise);
  std::fill(rowwise_scale_inv, rowwise_scale_inv + rows, scale_inverse(scale));
  std::fill(columnwise_scale_inv, columnwise_scale_inv + cols, scale_inverse(scale));
}

const LineScaledCast kRowwise{quantize_fp8_rowwise, fp8_rowwise_workspace_bytes,
                              reference_quantize_fp8_rowwise};
const LineScaledCast kTensorwiseOuterVec{
    quantize_fp8_tensorwise_outer_vec,
    [](int64_t, int64_t) { return fp8_tensorwise_outer_vec_workspace_bytes(); },
    reference_tensorwise_outer_vec};

void expect_matches(const LineScaledCast& cast, const std::vector<__nv_bfloat16>& input,
                    const Shape& shape, bool want_rowwise, bool want_columnwise) {
  SCOPED_TRACE(testing::shape_name(shape) + (want_rowwise ? " rowwise" : "") +
               (want_columnwise ? " columnwise" : ""));
  const int64_t count = shape.rows * shape.cols;
  const auto device_input = testing::upload(input);
  const testing::QuantizerOutputs outputs(count, shape.rows, shape.cols, want_rowwise,
                                          want_columnwise);
  const auto targets = outputs.targets<Fp8RowwiseTargets>();
  DeviceBuffer<uint8_t> workspace(cast.workspace_bytes(shape.rows, shape.cols));
  // Twice: the amaxes of the first call must not leak into the second.
  for (int call = 0; call < 2; ++call)
    cast.quantize(device_input.get(), shape.rows, shape.cols, targets, workspace.get(), nullptr);

  std::vector<uint8_t> expected_rowwise(count), expected_columnwise(count);
  std::vector<float> expected_rowwise_scales(shape.rows), expected_columnwise_scales(shape.cols);
  cast.reference(input.data(), shape.rows, shape.cols, expected_rowwise.data(),
                 expected_rowwise_scales.data(), expected_columnwise.data(),
                 expected_columnwise_scales.data());
  outputs.expect_reference(expected_rowwise, expected_rowwise_scales, expected_columnwise,
                           expected_columnwise_scales);
}

void expect_rowwise_quantization_matches(const std::vector<__nv_bfloat16>& input,
                                         const Shape& shape, bool want_rowwise,
                                         bool want_columnwise) {
  expect_matches(kRowwise, input, shape, want_rowwise, want_columnwise);
}

TEST(Fp8RowwiseGpu, EveryCopyMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 900;
  for (const Shape& shape : kShapes) {
    const auto input = lines_of_other_magnitudes(shape, seed++);
    expect_rowwise_quantization_matches(input, shape, true, true);
    expect_rowwise_quantization_matches(input, shape, true, false);
    expect_rowwise_quantization_matches(input, shape, false, true);
  }
}

// A row and a column of zeros (scale 1), an infinity (its lines saturate, scale 1), NaNs
// (ignored by the amax, kept as NaN) and subnormals (huge power-of-2 scales).
TEST(Fp8RowwiseGpu, LinesOfZerosInfinityNanAndSubnormals) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{300, 1000};
  auto input = lines_of_other_magnitudes(shape, 950);
  for (int64_t c = 0; c < shape.cols; ++c)
    input[5 * shape.cols + c] = __float2bfloat16(0.0f);
  for (int64_t r = 0; r < shape.rows; ++r)
    input[r * shape.cols + 7] = __float2bfloat16(0.0f);
  input[20 * shape.cols + 30] = __float2bfloat16(std::numeric_limits<float>::infinity());
  input[40 * shape.cols + 50] = __float2bfloat16(std::numeric_limits<float>::quiet_NaN());
  for (int64_t c = 0; c < shape.cols; ++c) {
    input[60 * shape.cols + c] =
        __float2bfloat16(std::numeric_limits<float>::min() * static_cast<float>(1 + c % 5) / 8.0f);
  }
  expect_rowwise_quantization_matches(input, shape, true, true);
}

// quantize_fp8_tensorwise_outer_vec (FP8RowwiseBF16Wgrad's weight in Dgrad): one power-of-2
// scale for the tensor, on rows and columns of other magnitudes (random_bf16: a per-line scale
// would differ from line to line).
const Shape kTensorwiseShapes[] = {{1, 1},     {1, 16},    {17, 272},
                                   {128, 128}, {257, 391}, {4096, 1536}};

TEST(Fp8TensorwiseOuterVecGpu, EveryCopyMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 1200;
  for (const Shape& shape : kTensorwiseShapes) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    expect_matches(kTensorwiseOuterVec, input, shape, true, true);
    expect_matches(kTensorwiseOuterVec, input, shape, true, false);
    expect_matches(kTensorwiseOuterVec, input, shape, false, true);
  }
}

// A tensor of zeros: scale 1, all-zero copies.
TEST(Fp8TensorwiseOuterVecGpu, ATensorOfZeros) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{64, 48};
  expect_matches(kTensorwiseOuterVec,
                 std::vector<__nv_bfloat16>(shape.rows * shape.cols, __float2bfloat16(0.0f)), shape,
                 true, true);
}

// The reference's scale math, by hand: the row [1, -3.5, 0.25] has amax 3.5, 448 / 3.5 = 128,
// already a power of two, so scale_inv 1/128 and the values survive exactly; the column of the
// same three values in a 3x1 tensor gets the same scale on its columnwise copy (and each of its
// rows, one value, a scale of its own); a line of zeros
// takes scale 1; 448 / 3 = 149.3 rounds down to 128.
TEST(Fp8RowwiseReference, ScalesArePowersOfTwoFromEachLinesAmax) {
  const std::vector<__nv_bfloat16> row = {__float2bfloat16(1.0f), __float2bfloat16(-3.5f),
                                          __float2bfloat16(0.25f)};
  std::vector<uint8_t> data(3), transposed(3);
  float scale_inv[3] = {};
  float column_scale_inv[3] = {};
  reference_quantize_fp8_rowwise(row.data(), 1, 3, data.data(), scale_inv, transposed.data(),
                                 column_scale_inv);
  EXPECT_EQ(scale_inv[0], 1.0f / 128.0f);
  EXPECT_EQ(fp8_decode(data[1], ElementFormat::kE4M3) * scale_inv[0], -3.5f);
  EXPECT_EQ(fp8_decode(data[2], ElementFormat::kE4M3) * scale_inv[0], 0.25f);
  // Columnwise, each column of the 1x3 tensor is one value: its own scale.
  EXPECT_EQ(column_scale_inv[1], 1.0f / 128.0f);
  EXPECT_EQ(column_scale_inv[0], 1.0f / 256.0f);  // 448 / 1 = 448, down to 256

  const std::vector<uint8_t> one_row = data;
  reference_quantize_fp8_rowwise(row.data(), 3, 1, data.data(), scale_inv, transposed.data(),
                                 column_scale_inv);
  EXPECT_EQ(column_scale_inv[0], 1.0f / 128.0f) << "a 3x1 column's amax is 3.5";
  EXPECT_EQ(transposed, one_row) << "the column of a 3x1 tensor quantizes as the 1x3 row";
  EXPECT_EQ(scale_inv[0], 1.0f / 256.0f) << "each row of the 3x1 tensor is one value";

  const std::vector<__nv_bfloat16> zeros(4, __float2bfloat16(0.0f));
  reference_quantize_fp8_rowwise(zeros.data(), 1, 4, data.data(), scale_inv, nullptr, nullptr);
  EXPECT_EQ(scale_inv[0], 1.0f);
  const std::vector<__nv_bfloat16> three = {__float2bfloat16(3.0f)};
  reference_quantize_fp8_rowwise(three.data(), 1, 1, data.data(), scale_inv, nullptr, nullptr);
  EXPECT_EQ(scale_inv[0], 1.0f / 128.0f);
}

// The rowwise copy alone of rows that fit in registers is one launch reading the input once;
// anything else the zeroing of the amaxes, the amax pass and the cast, reading it twice.
TEST(Fp8RowwiseLaunches, OnePassForTheRowwiseCopyAloneOfRowsThatFit) {
  EXPECT_EQ(fp8_rowwise_launches(4096, true, false), 1u);
  EXPECT_EQ(fp8_rowwise_input_reads(4096, true, false), 1);
  EXPECT_EQ(fp8_rowwise_launches(16384, true, false), 1u);
  EXPECT_EQ(fp8_rowwise_launches(16392, true, false), 3u) << "past 16384 BF16 a row";
  EXPECT_EQ(fp8_rowwise_input_reads(16392, true, false), 2);
  EXPECT_EQ(fp8_rowwise_launches(1000 + 4, true, false), 3u) << "not whole 16-byte chunks";
  EXPECT_EQ(fp8_rowwise_launches(4096, true, true), 3u);
  EXPECT_EQ(fp8_rowwise_input_reads(4096, true, true), 2);
  EXPECT_EQ(fp8_rowwise_launches(4096, false, true), 3u);
  EXPECT_EQ(fp8_rowwise_input_reads(4096, false, true), 2);
}

}  // namespace
}  // namespace gemmscope
