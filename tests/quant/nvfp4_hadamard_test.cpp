// The random Hadamard transform: its matrix is orthogonal, the fast transform the kernels run
// computes it, applying it twice (without signs) or forth and back restores the input, and it
// leaves the Wgrad product dYᵀ·X unchanged when applied to both operands along tokens.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "quant/nvfp4/hadamard.h"
#include "quant/nvfp4/reference.h"

namespace gemmscope {
namespace {

constexpr int kN = kHadamardSize;

TEST(Hadamard, SignMaskComesFromTheSeed) {
  EXPECT_EQ(hadamard_sign_mask(kHadamardSignSeed), hadamard_sign_mask(kHadamardSignSeed));
  EXPECT_NE(hadamard_sign_mask(1), hadamard_sign_mask(2));
  const uint16_t mask = hadamard_sign_mask(kHadamardSignSeed);
  EXPECT_NE(mask, 0);       // some signs flipped...
  EXPECT_NE(mask, 0xFFFF);  // ...but not all
}

TEST(Hadamard, MatrixIsOrthogonal) {
  for (const uint16_t mask :
       {uint16_t{0}, hadamard_sign_mask(kHadamardSignSeed), uint16_t{0xA5C3}}) {
    const auto m = random_hadamard_matrix(mask);
    for (int i = 0; i < kN; ++i) {
      for (int j = 0; j < kN; ++j) {
        double dot = 0.0;
        for (int k = 0; k < kN; ++k)
          dot += m[i * kN + k] * m[j * kN + k];
        EXPECT_EQ(dot, i == j ? 1.0 : 0.0) << "mask " << mask << " rows " << i << ", " << j;
      }
    }
  }
}

TEST(Hadamard, FirstRowAndColumnOfTheSylvesterMatrix) {
  const auto m = random_hadamard_matrix(0);
  for (int k = 0; k < kN; ++k) {
    EXPECT_EQ(m[k], 0.25);       // row 0 of H is all ones
    EXPECT_EQ(m[k * kN], 0.25);  // and so is column 0
  }
  EXPECT_EQ(m[1 * kN + 1], -0.25);  // popcount(1 & 1) odd
  EXPECT_EQ(m[3 * kN + 5], -0.25);  // popcount(3 & 5) = popcount(1) odd
  EXPECT_EQ(m[3 * kN + 3], 0.25);   // popcount(3) even
}

std::array<float, kN> random_vector(std::mt19937& generator) {
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::array<float, kN> v{};
  for (float& x : v)
    x = normal(generator);
  return v;
}

TEST(Hadamard, FastTransformComputesTheMatrix) {
  std::mt19937 generator(3);
  const uint16_t mask = hadamard_sign_mask(kHadamardSignSeed);
  const auto m = random_hadamard_matrix(mask);
  for (int trial = 0; trial < 100; ++trial) {
    std::array<float, kN> v = random_vector(generator);
    const std::array<float, kN> x = v;
    random_hadamard_transform16(v.data(), mask);
    for (int i = 0; i < kN; ++i) {
      double expected = 0.0;
      for (int k = 0; k < kN; ++k)
        expected += m[i * kN + k] * x[k];
      EXPECT_NEAR(v[i], expected, 1e-5) << "element " << i;
    }
  }
}

TEST(Hadamard, WithoutSignsTwiceIsTheIdentity) {
  // Small integers: every intermediate is exact, so the identity holds bit for bit.
  std::array<float, kN> v{};
  for (int i = 0; i < kN; ++i)
    v[i] = static_cast<float>(i * 3 - 20);
  const std::array<float, kN> x = v;
  random_hadamard_transform16(v.data(), 0);
  EXPECT_NE(v, x);
  random_hadamard_transform16(v.data(), 0);
  EXPECT_EQ(v, x);
}

TEST(Hadamard, TransposeUndoesTheSignedTransform) {
  std::mt19937 generator(5);
  const uint16_t mask = hadamard_sign_mask(kHadamardSignSeed);
  const auto m = random_hadamard_matrix(mask);
  std::array<float, kN> v = random_vector(generator);
  const std::array<float, kN> x = v;
  random_hadamard_transform16(v.data(), mask);
  for (int k = 0; k < kN; ++k) {
    double back = 0.0;
    for (int i = 0; i < kN; ++i)
      back += m[i * kN + k] * v[i];  // (Mᵀ y)_k
    EXPECT_NEAR(back, x[k], 1e-5);
  }
}

// Wgrad: dW = dYᵀ·X over tokens. Transforming every 16 consecutive tokens of both operands
// with the same orthogonal M changes nothing: (M·dY)ᵀ(M·X) = dYᵀ·Mᵀ·M·X = dYᵀ·X.
TEST(Hadamard, LeavesTheWgradProductUnchanged) {
  const int tokens = 64;
  const int out = 5;
  const int in = 3;
  std::mt19937 generator(9);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> dy(tokens * out);
  std::vector<double> x(tokens * in);
  for (double& v : dy)
    v = normal(generator);
  for (double& v : x)
    v = normal(generator);
  const auto m = random_hadamard_matrix(hadamard_sign_mask(kHadamardSignSeed));
  // Applies M along tokens to each column of a [tokens, width] matrix.
  auto transform = [&](const std::vector<double>& a, int width) {
    std::vector<double> result(a.size(), 0.0);
    for (int group = 0; group < tokens; group += kN) {
      for (int col = 0; col < width; ++col) {
        for (int i = 0; i < kN; ++i) {
          for (int k = 0; k < kN; ++k) {
            result[(group + i) * width + col] += m[i * kN + k] * a[(group + k) * width + col];
          }
        }
      }
    }
    return result;
  };
  auto wgrad = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> dw(out * in, 0.0);
    for (int o = 0; o < out; ++o) {
      for (int i = 0; i < in; ++i) {
        for (int t = 0; t < tokens; ++t)
          dw[o * in + i] += a[t * out + o] * b[t * in + i];
      }
    }
    return dw;
  };
  const std::vector<double> plain = wgrad(dy, x);
  const std::vector<double> transformed = wgrad(transform(dy, out), transform(x, in));
  for (size_t i = 0; i < plain.size(); ++i)
    EXPECT_NEAR(transformed[i], plain[i], 1e-12);
  // The transform really changed the operands.
  EXPECT_GT(std::fabs(transform(dy, out)[0] - dy[0]), 1e-6);
}

// The same through the FP32 transform the kernels and references run, on the columnwise
// copies ([width, tokens], transformed along their rows).
TEST(Hadamard, Fp32TransformLeavesTheWgradProductUnchangedUpToRounding) {
  const int tokens = 32;
  const int out = 4;
  const int in = 6;
  std::mt19937 generator(21);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> dy_t(out * tokens);  // dYᵀ: the columnwise copy of dY
  std::vector<float> x_t(in * tokens);
  for (float& v : dy_t)
    v = normal(generator);
  for (float& v : x_t)
    v = normal(generator);
  const uint16_t mask = hadamard_sign_mask(kHadamardSignSeed);
  const std::vector<float> dy_h = reference_hadamard_rows(dy_t, out, tokens, mask);
  const std::vector<float> x_h = reference_hadamard_rows(x_t, in, tokens, mask);
  for (int o = 0; o < out; ++o) {
    for (int i = 0; i < in; ++i) {
      double plain = 0.0;
      double transformed = 0.0;
      for (int t = 0; t < tokens; ++t) {
        plain += static_cast<double>(dy_t[o * tokens + t]) * x_t[i * tokens + t];
        transformed += static_cast<double>(dy_h[o * tokens + t]) * x_h[i * tokens + t];
      }
      EXPECT_NEAR(transformed, plain, 1e-4) << o << ", " << i;
    }
  }
}

}  // namespace
}  // namespace gemmscope
