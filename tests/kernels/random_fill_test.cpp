#include "kernels/random_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/device_buffer.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

std::vector<float> filled(size_t count, uint64_t seed, float mean, float stddev) {
  DeviceBuffer<__nv_bfloat16> buffer(count);
  fill_normal(buffer.get(), count, seed, mean, stddev, nullptr);
  std::vector<__nv_bfloat16> raw(count);
  CUDA_CHECK(cudaMemcpy(raw.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = __bfloat162float(raw[i]);
  return values;
}

TEST(RandomFill, NormalMomentsNoZerosAndReproducible) {
  GEMMSCOPE_REQUIRE_GPU();
  const size_t count = 1 << 20;
  const std::vector<float> values = filled(count, 42, 0.5f, 2.0f);
  double sum = 0, sum_sq = 0;
  for (float v : values) {
    ASSERT_NE(v, 0.0f);
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double mean = sum / count;
  const double variance = sum_sq / count - mean * mean;
  // Standard errors at 2^20 samples: 0.002 for the mean, ~0.006 for the variance of N(., 4).
  EXPECT_NEAR(mean, 0.5, 0.01);
  EXPECT_NEAR(variance, 4.0, 0.05);
  EXPECT_EQ(values, filled(count, 42, 0.5f, 2.0f));
  EXPECT_NE(values, filled(count, 43, 0.5f, 2.0f));
}

}  // namespace
}  // namespace gemmscope
