// FP8 encode/decode on the host, hand-checked and against the host path of cuda_fp8.h's
// conversion (NVIDIA's emulation of cvt.rn.satfinite, the instruction the kernels use).

#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "quant/fp8/format.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

constexpr ElementFormat kE4M3 = ElementFormat::kE4M3;
constexpr ElementFormat kE5M2 = ElementFormat::kE5M2;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(Fp8Format, MaxFiniteValues) {
  EXPECT_EQ(fp8_max_finite(kE4M3), 448.0f);
  EXPECT_EQ(fp8_max_finite(kE5M2), 57344.0f);
  EXPECT_EQ(fp8_decode(0x7E, kE4M3), 448.0f);
  EXPECT_EQ(fp8_decode(0x7B, kE5M2), 57344.0f);
}

TEST(Fp8Format, RejectsNonFp8FormatsByName) {
  const std::string message =
      thrown_message<std::invalid_argument>([] { fp8_encode(1.0f, ElementFormat::kBF16); });
  EXPECT_TRUE(contains(message, "BF16")) << message;
  EXPECT_TRUE(contains(
      thrown_message<std::invalid_argument>([] { fp8_max_finite(ElementFormat::kE2M1); }), "E2M1"));
}

TEST(Fp8Format, E4M3HandCheckedCodes) {
  EXPECT_EQ(fp8_encode(1.0f, kE4M3), 0x38);   // exponent 7 (bias 7), mantissa 0
  EXPECT_EQ(fp8_encode(-2.0f, kE4M3), 0xC0);  // sign, exponent 8
  EXPECT_EQ(fp8_encode(0.5f, kE4M3), 0x30);
  EXPECT_EQ(fp8_encode(std::ldexp(1.0f, -9), kE4M3), 0x01);  // smallest subnormal
  EXPECT_EQ(fp8_encode(std::ldexp(7.0f, -9), kE4M3), 0x07);  // largest subnormal
  EXPECT_EQ(fp8_encode(std::ldexp(1.0f, -6), kE4M3), 0x08);  // smallest normal
  EXPECT_EQ(fp8_encode(0.0f, kE4M3), 0x00);
  EXPECT_EQ(fp8_encode(-0.0f, kE4M3), 0x80);
}

TEST(Fp8Format, E4M3RoundsTiesToEven) {
  EXPECT_EQ(fp8_encode(1.0625f, kE4M3), 0x38);                // halfway 1.0 (even) / 1.125 -> 1.0
  EXPECT_EQ(fp8_encode(1.1875f, kE4M3), 0x3A);                // halfway 1.125 / 1.25 (even) -> 1.25
  EXPECT_EQ(fp8_encode(1.07f, kE4M3), 0x39);                  // above halfway -> 1.125
  EXPECT_EQ(fp8_encode(std::ldexp(1.0f, -10), kE4M3), 0x00);  // halfway 0 / 2^-9 -> 0
  EXPECT_EQ(fp8_encode(std::ldexp(3.0f, -10), kE4M3), 0x02);  // halfway 2^-9 / 2^-8 -> 2^-8
  EXPECT_EQ(fp8_encode(-std::ldexp(1.0f, -12), kE4M3), 0x80);  // underflow keeps the sign
}

TEST(Fp8Format, E4M3SaturatesAndMapsNanToNan) {
  EXPECT_EQ(fp8_encode(464.0f, kE4M3), 0x7E);  // halfway to the (non-existent) 480
  EXPECT_EQ(fp8_encode(500.0f, kE4M3), 0x7E);
  EXPECT_EQ(fp8_encode(-1e30f, kE4M3), 0xFE);
  EXPECT_EQ(fp8_encode(kInf, kE4M3), 0x7E);
  EXPECT_EQ(fp8_encode(-kInf, kE4M3), 0xFE);
  EXPECT_EQ(fp8_encode(kNan, kE4M3), 0x7F);
  EXPECT_EQ(fp8_encode(-kNan, kE4M3), 0x7F);
  EXPECT_TRUE(std::isnan(fp8_decode(0x7F, kE4M3)));
  EXPECT_TRUE(std::isnan(fp8_decode(0xFF, kE4M3)));
}

TEST(Fp8Format, E5M2HandCheckedCodes) {
  EXPECT_EQ(fp8_encode(1.0f, kE5M2), 0x3C);  // exponent 15 (bias 15), mantissa 0
  EXPECT_EQ(fp8_encode(-1.5f, kE5M2), 0xBE);
  EXPECT_EQ(fp8_encode(std::ldexp(1.0f, -16), kE5M2), 0x01);  // smallest subnormal
  EXPECT_EQ(fp8_encode(1.125f, kE5M2), 0x3C);                 // halfway 1.0 (even) / 1.25 -> 1.0
  EXPECT_EQ(fp8_encode(1.375f, kE5M2), 0x3E);                 // halfway 1.25 / 1.5 (even) -> 1.5
  EXPECT_EQ(fp8_encode(61440.0f, kE5M2), 0x7B);               // halfway to infinity: saturates
  EXPECT_EQ(fp8_encode(kInf, kE5M2), 0x7B);
  EXPECT_EQ(fp8_encode(-kInf, kE5M2), 0xFB);
  EXPECT_EQ(fp8_encode(kNan, kE5M2), 0x7F);
  EXPECT_EQ(fp8_decode(0x7C, kE5M2), kInf);
  EXPECT_EQ(fp8_decode(0xFC, kE5M2), -kInf);
  EXPECT_TRUE(std::isnan(fp8_decode(0x7D, kE5M2)));
  EXPECT_EQ(fp8_decode(0x01, kE5M2), std::ldexp(1.0f, -16));
}

TEST(Fp8Format, EveryFiniteCodeRoundTrips) {
  for (ElementFormat format : {kE4M3, kE5M2}) {
    for (int code = 0; code < 256; ++code) {
      const float value = fp8_decode(static_cast<uint8_t>(code), format);
      if (!std::isfinite(value))
        continue;
      EXPECT_EQ(fp8_encode(value, format), code) << "code " << code << " value " << value;
    }
  }
}

// Values to convert: a spread of FP32 bit patterns over the whole range (both signs, NaN,
// infinities, subnormals) and, for every pair of neighbouring FP8 values, their midpoint and the
// FP32 values just either side of it.
std::vector<float> conversion_probes(ElementFormat format) {
  std::vector<float> probes;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 4099) {
    const auto pattern = static_cast<uint32_t>(bits);
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    probes.push_back(value);
  }
  for (int code = 0; code < 0x7F; ++code) {
    const float low = fp8_decode(static_cast<uint8_t>(code), format);
    const float high = fp8_decode(static_cast<uint8_t>(code + 1), format);
    if (!std::isfinite(low) || !std::isfinite(high))
      continue;
    const float middle = (low + high) / 2;
    for (float probe : {middle, std::nextafter(middle, 0.0f), std::nextafter(middle, kInf)}) {
      probes.push_back(probe);
      probes.push_back(-probe);
    }
  }
  return probes;
}

TEST(Fp8Format, MatchesCudaSaturatingConversion) {
  for (ElementFormat format : {kE4M3, kE5M2}) {
    const __nv_fp8_interpretation_t cuda_format = format == kE4M3 ? __NV_E4M3 : __NV_E5M2;
    int failures = 0;
    for (float value : conversion_probes(format)) {
      const auto expected =
          static_cast<uint8_t>(__nv_cvt_float_to_fp8(value, __NV_SATFINITE, cuda_format));
      const uint8_t actual = fp8_encode(value, format);
      if (actual != expected && ++failures <= 5) {
        ADD_FAILURE() << (format == kE4M3 ? "E4M3 " : "E5M2 ") << testing::describe(value) << ": "
                      << testing::describe(actual) << " != cuda " << testing::describe(expected);
      }
    }
    EXPECT_EQ(failures, 0);
  }
}

}  // namespace
}  // namespace gemmscope
