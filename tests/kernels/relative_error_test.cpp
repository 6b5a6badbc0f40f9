#include "kernels/reference/relative_error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/device_buffer.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

double device_error(const std::vector<__nv_bfloat16>& got, const std::vector<float>& expected) {
  DeviceBuffer<__nv_bfloat16> got_dev(got.size());
  DeviceBuffer<float> expected_dev(expected.size());
  CUDA_CHECK(cudaMemcpy(got_dev.get(), got.data(), got_dev.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(expected_dev.get(), expected.data(), expected_dev.bytes(),
                        cudaMemcpyHostToDevice));
  return relative_frobenius_error(got_dev.get(), expected_dev.get(), got.size(), nullptr);
}

TEST(RelativeFrobeniusError, HandComputedCase) {
  GEMMSCOPE_REQUIRE_GPU();
  // expected (3, 4): norm 5. got (3, 5): difference norm 1 -> 0.2.
  const std::vector<float> expected = {3.0f, 4.0f};
  const std::vector<__nv_bfloat16> got = {__float2bfloat16(3.0f), __float2bfloat16(5.0f)};
  EXPECT_DOUBLE_EQ(device_error(got, expected), 0.2);
}

TEST(RelativeFrobeniusError, ExactMatchOverManyBlocksIsZero) {
  GEMMSCOPE_REQUIRE_GPU();
  const size_t count = 3'000'017;  // more elements than one pass of the grid covers
  std::vector<float> expected(count);
  std::vector<__nv_bfloat16> got(count);
  for (size_t i = 0; i < count; ++i) {
    expected[i] = static_cast<float>(i % 251) - 125.0f;
    got[i] = __float2bfloat16(expected[i]);  // small integers are exact in BF16
  }
  EXPECT_EQ(device_error(got, expected), 0.0);
}

TEST(RelativeFrobeniusError, NaNInOutputIsNotSmall) {
  GEMMSCOPE_REQUIRE_GPU();
  const std::vector<float> expected = {1.0f, 2.0f, 3.0f};
  std::vector<__nv_bfloat16> got = {__float2bfloat16(1.0f), __float2bfloat16(NAN),
                                    __float2bfloat16(3.0f)};
  const double error = device_error(got, expected);
  EXPECT_FALSE(error <= 1.0) << error;
}

}  // namespace
}  // namespace gemmscope
