// The reference GEMM is what --verify trusts, so it is itself checked against a host triple
// loop in double, for every way an operand can be strided.

#include "kernels/reference/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/device_buffer.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

struct HostMatrix {
  std::vector<float> values;
  int64_t rows, cols;
  bool transposed;  // stored as [cols, rows]
  float at(int64_t i, int64_t j) const {
    return transposed ? values[j * rows + i] : values[i * cols + j];
  }
};

HostMatrix random_matrix(int64_t rows, int64_t cols, bool transposed, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  HostMatrix m{std::vector<float>(rows * cols), rows, cols, transposed};
  for (float& v : m.values)
    v = normal(rng);
  return m;
}

StridedMatrix strided(const HostMatrix& m, const float* device) {
  return m.transposed ? StridedMatrix{device, m.rows, m.cols, 1, m.rows}
                      : StridedMatrix{device, m.rows, m.cols, m.cols, 1};
}

class ReferenceGemmLayouts : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(ReferenceGemmLayouts, MatchesHostTripleLoop) {
  GEMMSCOPE_REQUIRE_GPU();
  const auto [a_transposed, b_transposed] = GetParam();
  const int64_t m = 37, k = 301, n = 53;  // odd sizes: partial tiles everywhere
  const HostMatrix a = random_matrix(m, k, a_transposed, 1);
  const HostMatrix b = random_matrix(k, n, b_transposed, 2);
  DeviceBuffer<float> a_dev(a.values.size()), b_dev(b.values.size()), out(m * n);
  CUDA_CHECK(cudaMemcpy(a_dev.get(), a.values.data(), a_dev.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b_dev.get(), b.values.data(), b_dev.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(out.get(), 0xFF, out.bytes()));  // NaN wherever nothing is written

  reference_gemm(strided(a, a_dev.get()), strided(b, b_dev.get()), out.get(), nullptr);
  std::vector<float> got(m * n);
  CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));

  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double expected = 0;
      double magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        expected += static_cast<double>(a.at(i, p)) * b.at(p, j);
        magnitude += std::abs(static_cast<double>(a.at(i, p)) * b.at(p, j));
      }
      // FP32 accumulation of k terms: error well below k * 2^-24 of the magnitude.
      ASSERT_NEAR(got[i * n + j], expected, magnitude * k * 0x1p-24)
          << "at (" << i << ", " << j << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllStrides, ReferenceGemmLayouts,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

TEST(ReferenceGemm, RefusesMismatchedInnerSizes) {
  const StridedMatrix a{nullptr, 4, 5, 5, 1};
  const StridedMatrix b{nullptr, 6, 4, 4, 1};
  EXPECT_THROW(reference_gemm(a, b, nullptr, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
