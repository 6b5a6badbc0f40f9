// GPU tests of the FP8 tensorwise quantizer with outer-vector scales (quant/fp8/
// tensorwise_outer_vec.h) against the host references it is made of, bit for bit: the tensor's
// amax (reference_amax), its power-of-2 E4M3 scale (scale_from_amax), the tensorwise cast
// (reference_cast_fp8), and that scale's inverse in every entry of each requested copy's vector;
// on odd and aligned shapes, rows and columns of other magnitudes (a per-line scale would differ
// from line to line), into poisoned and guarded buffers.

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <vector>

#include "kernels/device_buffer.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/reference.h"
#include "quant/fp8/tensorwise_outer_vec.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::Shape;

const Shape kShapes[] = {{1, 1}, {1, 16}, {17, 272}, {128, 128}, {257, 391}, {4096, 1536}};

void expect_matches_reference(const std::vector<__nv_bfloat16>& input, const Shape& shape,
                              bool want_rowwise, bool want_columnwise) {
  SCOPED_TRACE(testing::shape_name(shape) + (want_rowwise ? " rowwise" : "") +
               (want_columnwise ? " columnwise" : ""));
  const int64_t count = shape.rows * shape.cols;
  const auto device_input = testing::upload(input);
  testing::PoisonedBuffer<uint8_t> rowwise(count), columnwise(count);
  testing::PoisonedBuffer<float> rowwise_scales(shape.rows), columnwise_scales(shape.cols);
  DeviceBuffer<uint8_t> workspace(fp8_tensorwise_outer_vec_workspace_bytes());
  Fp8RowwiseTargets targets;
  if (want_rowwise) {
    targets.rowwise = rowwise.get();
    targets.rowwise_scale_inv = rowwise_scales.get();
  }
  if (want_columnwise) {
    targets.columnwise = columnwise.get();
    targets.columnwise_scale_inv = columnwise_scales.get();
  }
  // Twice: the first call's amax must not leak into the second.
  for (int call = 0; call < 2; ++call) {
    quantize_fp8_tensorwise_outer_vec(device_input.get(), shape.rows, shape.cols, targets,
                                      workspace.get(), nullptr);
  }

  const float scale =
      scale_from_amax(reference_amax(input.data(), count), kE4M3MaxFinite, /*power_of_2=*/true);
  std::vector<uint8_t> expected_rowwise(count), expected_columnwise(count);
  reference_cast_fp8(input.data(), shape.rows, shape.cols, ElementFormat::kE4M3, scale,
                     expected_rowwise.data(), expected_columnwise.data());
  const float scale_inv = scale_inverse(scale);
  const std::vector<float> expected_rowwise_scales(shape.rows, scale_inv);
  const std::vector<float> expected_columnwise_scales(shape.cols, scale_inv);
  testing::expect_copy(
      {rowwise, rowwise_scales, expected_rowwise, expected_rowwise_scales, want_rowwise},
      "rowwise");
  testing::expect_copy({columnwise, columnwise_scales, expected_columnwise,
                        expected_columnwise_scales, want_columnwise},
                       "columnwise");
}

TEST(Fp8TensorwiseOuterVecGpu, EveryCopyMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  uint32_t seed = 1200;
  for (const Shape& shape : kShapes) {
    const auto input = testing::random_bf16(shape.rows, shape.cols, seed++);
    expect_matches_reference(input, shape, true, true);
    expect_matches_reference(input, shape, true, false);
    expect_matches_reference(input, shape, false, true);
  }
}

// A tensor of zeros: scale 1, all-zero copies.
TEST(Fp8TensorwiseOuterVecGpu, ATensorOfZeros) {
  GEMMSCOPE_REQUIRE_GPU();
  const Shape shape{64, 48};
  expect_matches_reference(
      std::vector<__nv_bfloat16>(shape.rows * shape.cols, __float2bfloat16(0.0f)), shape, true,
      true);
}

}  // namespace
}  // namespace gemmscope
