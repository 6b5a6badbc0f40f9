#include "tools/report/case_name.h"

#include <gtest/gtest.h>

namespace gemmscope::report {
namespace {

TEST(CaseName, ParsesAModelCaseWithGoogleBenchmarksSuffix) {
  const ParsedName parsed =
      parse_case_name("FP8Delayed/Dgrad/mlp_down/autocast/M:8192/K:4096/N:14336/manual_time");
  ASSERT_EQ(parsed.kind, ParsedName::Kind::kGemm) << parsed.problem;
  EXPECT_EQ(parsed.gemm.precision, Precision::kFP8Delayed);
  EXPECT_EQ(parsed.gemm.pass, Pass::kDgrad);
  EXPECT_EQ(parsed.gemm.op, "mlp_down");
  EXPECT_EQ(parsed.gemm.mode, Mode::kAutocast);
  EXPECT_EQ(parsed.gemm.shape, (GemmShape{8192, 4096, 14336}));
  EXPECT_EQ(parsed.gemm.key(), "FP8Delayed/Dgrad/mlp_down/autocast");
}

TEST(CaseName, AcceptsNamesWithoutSuffixAndWithSeveralBenchmarkSuffixes) {
  EXPECT_EQ(parse_case_name("BF16/Fprop/qkv/native/M:1/K:2/N:3").kind, ParsedName::Kind::kGemm);
  EXPECT_EQ(parse_case_name("NVFP4/Wgrad/gemm12/prequant/M:1/K:2/N:3/repeats:5/manual_time").kind,
            ParsedName::Kind::kGemm);
}

TEST(CaseName, EveryPrecisionInDisplayOrderRoundTrips) {
  const char* expected[] = {"BF16", "FP8Current", "FP8Delayed", "FP8Block", "MXFP8", "NVFP4"};
  for (size_t i = 0; i < kPrecisions.size(); ++i) {
    EXPECT_EQ(precision_name(kPrecisions[i]), expected[i]);
    EXPECT_EQ(parse_precision(expected[i]), kPrecisions[i]);
  }
}

TEST(CaseName, RecognisesQuantizationCases) {
  const ParsedName parsed =
      parse_case_name("MXFP8/Quantize/activation/rowwise/R:8192/C:4096/manual_time");
  EXPECT_EQ(parsed.kind, ParsedName::Kind::kQuantize);
}

struct BadName {
  const char* name;
  const char* problem;
};

class CaseNameRejects : public ::testing::TestWithParam<BadName> {};

TEST_P(CaseNameRejects, WithAProblemNamingTheField) {
  const ParsedName parsed = parse_case_name(GetParam().name);
  EXPECT_EQ(parsed.kind, ParsedName::Kind::kUnparseable);
  EXPECT_EQ(parsed.problem, GetParam().problem);
}

INSTANTIATE_TEST_SUITE_P(
    Names, CaseNameRejects,
    ::testing::Values(BadName{"FP16/Fprop/qkv/native/M:1/K:2/N:3", "unknown precision 'FP16'"},
                      BadName{"BM_memcpy/64", "unknown precision 'BM_memcpy'"},
                      BadName{"BF16/Bprop/qkv/native/M:1/K:2/N:3", "unknown pass 'Bprop'"},
                      BadName{"BF16/Fprop/proj/native/M:1/K:2/N:3", "unknown op 'proj'"},
                      BadName{"BF16/Fprop/gemm01/native/M:1/K:2/N:3", "unknown op 'gemm01'"},
                      BadName{"FP8Block/Fprop/qkv/eager/M:1/K:2/N:3", "unknown mode 'eager'"},
                      BadName{"BF16/Fprop/qkv/autocast/M:1/K:2/N:3",
                              "mode 'native' is BF16's only mode, got 'BF16' with 'autocast'"},
                      BadName{"FP8Current/Fprop/qkv/native/M:1/K:2/N:3",
                              "mode 'native' is BF16's only mode, got 'FP8Current' with 'native'"},
                      BadName{"BF16/Fprop/qkv/native/M:0/K:2/N:3",
                              "expected M:{m}/K:{k}/N:{n} with positive integers"},
                      BadName{"BF16/Fprop/qkv/native/M:1/N:2/K:3",
                              "expected M:{m}/K:{k}/N:{n} with positive integers"},
                      BadName{"BF16/Fprop/qkv/native/M:1/K:2",
                              "fewer fields than {Precision}/{Pass}/{op}/{mode}/M/K/N"},
                      BadName{"BF16/Fprop/qkv/native/M:1/K:2/N:3/extra",
                              "unexpected field 'extra'"},
                      BadName{"MXFP8/Quantize/weight/rowwise/R:128",
                              "quantization case without R:{rows}/C:{cols}"}));

TEST(CaseName, ShapesGemmIndex) {
  EXPECT_EQ(shapes_gemm_index("gemm0"), 0);
  EXPECT_EQ(shapes_gemm_index("gemm17"), 17);
  EXPECT_EQ(shapes_gemm_index("gemm"), std::nullopt);
  EXPECT_EQ(shapes_gemm_index("qkv"), std::nullopt);
  EXPECT_TRUE(is_model_op("attn_out"));
  EXPECT_FALSE(is_model_op("gemm0"));
}

}  // namespace
}  // namespace gemmscope::report
