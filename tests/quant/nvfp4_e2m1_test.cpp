// E2M1 elements: the reference codec on hand-checked values and ties, its agreement with
// cuda_fp4.h, and the GPU's FMA-rounding conversions (and their packing into words) swept
// against it.

#include <cuda_fp4.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "quant/detail/block_codecs.h"
#include "quant/float_bits.h"
#include "quant/nvfp4/e2m1.h"

namespace gemmscope {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(E2m1, RepresentableValuesEncodeExactly) {
  const float magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(encode_e2m1(magnitudes[code]), code) << magnitudes[code];
    EXPECT_EQ(encode_e2m1(-magnitudes[code]), code | 0x8) << -magnitudes[code];
    EXPECT_EQ(decode_e2m1(static_cast<uint8_t>(code)), magnitudes[code]);
    EXPECT_EQ(decode_e2m1(static_cast<uint8_t>(code | 0x8)), -magnitudes[code]);
  }
}

// Midpoints go to the neighbour whose mantissa bit is 0 (the even code).
TEST(E2m1, TiesRoundToEven) {
  EXPECT_EQ(encode_e2m1(0.25f), 0x0);  // 0 (code 0) over 0.5 (code 1)
  EXPECT_EQ(encode_e2m1(0.75f), 0x2);  // 1.0 (code 2) over 0.5 (code 1)
  EXPECT_EQ(encode_e2m1(1.25f), 0x2);  // 1.0 over 1.5 (code 3)
  EXPECT_EQ(encode_e2m1(1.75f), 0x4);  // 2.0 (code 4) over 1.5
  EXPECT_EQ(encode_e2m1(2.5f), 0x4);   // 2.0 over 3.0 (code 5)
  EXPECT_EQ(encode_e2m1(3.5f), 0x6);   // 4.0 (code 6) over 3.0
  EXPECT_EQ(encode_e2m1(5.0f), 0x6);   // 4.0 over 6.0 (code 7)
  EXPECT_EQ(encode_e2m1(-2.5f), 0xC);
  // Off the midpoints, the nearest wins.
  EXPECT_EQ(encode_e2m1(0.2500001f), 0x1);
  EXPECT_EQ(encode_e2m1(1.2499999f), 0x2);
  EXPECT_EQ(encode_e2m1(5.0000005f), 0x7);
}

TEST(E2m1, SaturatesAndKeepsTheSignOfZero) {
  EXPECT_EQ(encode_e2m1(6.5f), 0x7);
  EXPECT_EQ(encode_e2m1(1e30f), 0x7);
  EXPECT_EQ(encode_e2m1(kInf), 0x7);
  EXPECT_EQ(encode_e2m1(-kInf), 0xF);
  EXPECT_EQ(encode_e2m1(kNan), 0x7);
  EXPECT_EQ(encode_e2m1(-0.0f), 0x8);
  EXPECT_EQ(encode_e2m1(-0.1f), 0x8);
  EXPECT_EQ(encode_e2m1(1e-30f), 0x0);
}

TEST(E2m1, PairsPutTheFirstElementInTheLowNibble) {
  const uint8_t byte = pack_e2m1_pair(0x1, 0xA);
  EXPECT_EQ(byte, 0xA1);
  EXPECT_EQ(e2m1_first_of_pair(byte), 0x1);
  EXPECT_EQ(e2m1_second_of_pair(byte), 0xA);
  // cuda_fp4.h's packed conversion agrees: x goes to the low nibble.
  const __nv_fp4x2_storage_t packed =
      __nv_cvt_float2_to_fp4x2(make_float2(0.5f, -1.0f), __NV_E2M1, cudaRoundNearest);
  EXPECT_EQ(packed, pack_e2m1_pair(encode_e2m1(0.5f), encode_e2m1(-1.0f)));
}

// CUDA's own (host) conversion follows the same rounding, saturation and NaN policy.
TEST(E2m1, AgreesWithCudaFp4) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> uniform(-8.0f, 8.0f);
  for (int i = 0; i < 200000; ++i) {
    const float value = i % 2 == 0 ? uniform(generator) : std::ldexp(uniform(generator), -6);
    ASSERT_EQ(encode_e2m1(value), __nv_cvt_float_to_fp4(value, __NV_E2M1, cudaRoundNearest))
        << value;
  }
  for (int step = -128; step <= 128; ++step) {  // every multiple of 1/16 in [-8, 8]: all ties
    const float value = static_cast<float>(step) / 16.0f;
    EXPECT_EQ(encode_e2m1(value), __nv_cvt_float_to_fp4(value, __NV_E2M1, cudaRoundNearest))
        << value;
  }
  EXPECT_EQ(encode_e2m1(kNan), __nv_cvt_float_to_fp4(kNan, __NV_E2M1, cudaRoundNearest));
  EXPECT_EQ(encode_e2m1(-kInf), __nv_cvt_float_to_fp4(-kInf, __NV_E2M1, cudaRoundNearest));
}

TEST(E2m1, StochasticRoundingHandChecked) {
  // 1.25 lies halfway between 1.0 (code 2) and 1.5 (code 3): up exactly when bits < 2^15.
  EXPECT_EQ(encode_e2m1_stochastic(1.25f, 0), 0x3);
  EXPECT_EQ(encode_e2m1_stochastic(1.25f, 32767), 0x3);
  EXPECT_EQ(encode_e2m1_stochastic(1.25f, 32768), 0x2);
  EXPECT_EQ(encode_e2m1_stochastic(-1.25f, 0), 0xB);
  // 4.5 is a quarter of the way from 4 to 6: up when bits < 16384.
  EXPECT_EQ(encode_e2m1_stochastic(4.5f, 16383), 0x7);
  EXPECT_EQ(encode_e2m1_stochastic(4.5f, 16384), 0x6);
  // Representable values never move; beyond 6 saturates; NaN as for round-to-nearest.
  for (const uint16_t bits : {uint16_t{0}, uint16_t{12345}, uint16_t{65535}}) {
    EXPECT_EQ(encode_e2m1_stochastic(1.0f, bits), 0x2);
    EXPECT_EQ(encode_e2m1_stochastic(0.0f, bits), 0x0);
    EXPECT_EQ(encode_e2m1_stochastic(-6.0f, bits), 0xF);
    EXPECT_EQ(encode_e2m1_stochastic(100.0f, bits), 0x7);
    EXPECT_EQ(encode_e2m1_stochastic(kNan, bits), 0x7);
  }
}

// Values that stress the GPU codecs: every power of two, midpoints and their neighbours.
std::vector<float> sweep_values() {
  std::vector<float> values = {0.0f, -0.0f, kInf, -kInf, kNan, 1e-45f, 6.0f, 5.0f, 0.25f};
  for (int step = -160; step <= 160; ++step) {
    const float value = static_cast<float>(step) / 16.0f;
    values.push_back(value);
    values.push_back(std::nextafter(value, kInf));
    values.push_back(std::nextafter(value, -kInf));
  }
  for (int exponent = -149; exponent <= 127; ++exponent)
    values.push_back(std::ldexp(1.3f, exponent));
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> uniform(-7.0f, 7.0f);
  for (int i = 0; i < 100000; ++i)
    values.push_back(uniform(generator));
  return values;
}

// The hot-loop variant: the low byte of the sum is the magnitude's code.
TEST(E2m1, KernelMagnitudeCodeSumMatchesReference) {
  for (const float value : sweep_values()) {
    ASSERT_EQ(detail::e2m1_magnitude_code_sum(value) & 0xFFu, encode_e2m1(value) & 0x7u) << value;
  }
  // Every 61st FP32 pattern from 0 to past 6, both signs.
  for (uint32_t bits = 0; bits <= 0x40E00000u; bits += 61) {
    for (const uint32_t sign : {0u, 0x80000000u}) {
      const float value = fp32_from_bits(bits | sign);
      ASSERT_EQ(detail::e2m1_magnitude_code_sum(value) & 0xFFu, encode_e2m1(value) & 0x7u) << value;
    }
  }
}

TEST(E2m1, KernelUnclampedCodeSumMatchesReferenceBelowSeven) {
  for (uint32_t bits = 0; bits < 0x40E00000u; bits += 29) {  // [0, 7)
    const float magnitude = fp32_from_bits(bits);
    ASSERT_EQ(detail::e2m1_unclamped_code_sum(magnitude) & 0xFFu, encode_e2m1(magnitude))
        << magnitude;
  }
  for (const float magnitude : sweep_values()) {
    if (!std::signbit(magnitude) && magnitude < 7.0f) {
      ASSERT_EQ(detail::e2m1_unclamped_code_sum(magnitude) & 0xFFu, encode_e2m1(magnitude))
          << magnitude;
    }
  }
}

TEST(E2m1, MagnitudeCodeSumsPackIntoWords) {
  const std::vector<float> values = sweep_values();
  std::mt19937 generator(19);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  for (int trial = 0; trial < 20000; ++trial) {
    uint32_t sums[8];
    uint32_t expected = 0;
    for (int k = 0; k < 8; ++k) {
      const float value = values[pick(generator)];
      sums[k] = detail::e2m1_magnitude_code_sum(value);
      expected |= uint32_t{encode_e2m1(value) & 0x7u} << (4 * k);
    }
    ASSERT_EQ(detail::pack_e2m1_magnitude_sums(sums), expected);
  }
}

TEST(E2m1, KernelStochasticRoundingMatchesReference) {
  std::mt19937 generator(13);
  std::uniform_int_distribution<int> bits(0, 65535);
  for (const float value : sweep_values()) {
    for (const int b :
         {0, 1, 16383, 16384, 32767, 32768, 65535, bits(generator), bits(generator)}) {
      const auto random_bits = static_cast<uint16_t>(b);
      ASSERT_EQ(detail::e2m1_round_stochastic(value, random_bits),
                encode_e2m1_stochastic(value, random_bits))
          << value << " bits " << b;
    }
  }
}

// The stochastic conversion adds eight biased codes into a word and removes the bias once
// (block_codecs.h).
TEST(E2m1, BiasedCodesPackIntoWords) {
  const std::vector<float> values = sweep_values();
  std::mt19937 generator(17);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::uniform_int_distribution<int> bits(0, 65535);
  for (int trial = 0; trial < 20000; ++trial) {
    uint32_t stochastic = 0u - detail::kE2m1WordBias;
    uint32_t expected = 0;
    for (int k = 0; k < 8; ++k) {
      const float value = values[pick(generator)];
      const auto random_bits = static_cast<uint16_t>(bits(generator));
      stochastic += detail::e2m1_biased_stochastic(value, random_bits) << (4 * k);
      expected |= uint32_t{encode_e2m1_stochastic(value, random_bits)} << (4 * k);
    }
    ASSERT_EQ(stochastic, expected);
  }
}

}  // namespace
}  // namespace gemmscope
