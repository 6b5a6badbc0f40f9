#include "tools/report/case_name.h"

#include <gtest/gtest.h>

#include <iterator>

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

TEST(CaseName, ParsesAGroupedCaseWithItsGroups) {
  const ParsedName parsed =
      parse_case_name("FP8Block/Wgrad/expert_up/prequant/G:32/M:1024/K:8192/N:512/manual_time");
  ASSERT_EQ(parsed.kind, ParsedName::Kind::kGemm) << parsed.problem;
  EXPECT_EQ(parsed.gemm.op, "expert_up");
  EXPECT_EQ(parsed.gemm.groups, 32);
  EXPECT_EQ(parsed.gemm.shape, (GemmShape{1024, 8192, 512}));
  EXPECT_EQ(parsed.gemm.key(), "FP8Block/Wgrad/expert_up/prequant") << "G is not part of the key";
  EXPECT_EQ(parsed.gemm.name(), "FP8Block/Wgrad/expert_up/prequant/G:32/M:1024/K:8192/N:512");
  EXPECT_EQ(size_text(parsed.gemm.shape, parsed.gemm.groups), "G:32 1024x8192x512");
}

// Every op of a model run, in every pass: a name gemm_bench writes parses, and prints back the
// same; exactly the grouped ops carry G.
TEST(CaseName, EveryLayerOpRoundTrips) {
  for (std::string_view op : kLayerOps) {
    const bool grouped = op == "expert_up" || op == "expert_down";
    EXPECT_EQ(is_grouped_op(op), grouped) << op;
    EXPECT_TRUE(is_model_op(op)) << op;
    for (Pass pass : kPasses) {
      const std::string name = "FP8Block/" + std::string(pass_name(pass)) + "/" + std::string(op) +
                               "/autocast" + (grouped ? "/G:7" : "") + "/M:128/K:256/N:512";
      const ParsedName parsed = parse_case_name(name + "/manual_time");
      ASSERT_EQ(parsed.kind, ParsedName::Kind::kGemm) << name << ": " << parsed.problem;
      EXPECT_EQ(parsed.gemm.op, op);
      EXPECT_EQ(parsed.gemm.pass, pass);
      EXPECT_EQ(parsed.gemm.groups, grouped ? std::optional<int64_t>(7) : std::nullopt) << name;
      EXPECT_EQ(parsed.gemm.name(), name);
    }
  }
  EXPECT_EQ(parse_case_name("NVFP4/Dgrad/gemm3/prequant/M:1/K:2/N:3").gemm.name(),
            "NVFP4/Dgrad/gemm3/prequant/M:1/K:2/N:3");
  EXPECT_EQ(size_text({1, 2, 3}, std::nullopt), "1x2x3");
}

TEST(CaseName, AcceptsNamesWithoutSuffixAndWithSeveralBenchmarkSuffixes) {
  EXPECT_EQ(parse_case_name("BF16/Fprop/qkv/native/M:1/K:2/N:3").kind, ParsedName::Kind::kGemm);
  EXPECT_EQ(parse_case_name("NVFP4/Wgrad/gemm12/prequant/M:1/K:2/N:3/repeats:5/manual_time").kind,
            ParsedName::Kind::kGemm);
}

TEST(CaseName, EveryPrecisionInDisplayOrderRoundTrips) {
  const char* expected[] = {"BF16",       "FP8Current",          "FP8Delayed", "FP8Block",
                            "FP8Rowwise", "FP8RowwiseBF16Wgrad", "MXFP8",      "NVFP4"};
  ASSERT_EQ(kPrecisions.size(), std::size(expected));
  for (size_t i = 0; i < kPrecisions.size(); ++i) {
    EXPECT_EQ(precision_name(kPrecisions[i]), expected[i]);
    EXPECT_EQ(parse_precision(expected[i]), kPrecisions[i]);
  }
}

// One precision's name begins with another's: each is read whole, never as the shorter one, and
// a token that only begins with a precision's name is none.
TEST(CaseName, APrecisionWhoseNameExtendsAnotherIsItsOwn) {
  EXPECT_EQ(parse_precision("FP8RowwiseBF16Wgrad"), Precision::kFP8RowwiseBF16Wgrad);
  EXPECT_EQ(parse_precision("FP8Rowwise"), Precision::kFP8Rowwise);
  EXPECT_EQ(parse_precision("FP8RowwiseBF16"), std::nullopt);
  const ParsedName wgrad =
      parse_case_name("FP8RowwiseBF16Wgrad/Wgrad/qkv/step/M:4096/K:2048/N:5120/manual_time");
  ASSERT_EQ(wgrad.kind, ParsedName::Kind::kGemm) << wgrad.problem;
  EXPECT_EQ(wgrad.gemm.precision, Precision::kFP8RowwiseBF16Wgrad);
  EXPECT_EQ(wgrad.gemm.key(), "FP8RowwiseBF16Wgrad/Wgrad/qkv/step");
  EXPECT_EQ(parse_case_name("FP8RowwiseBF16Wgrad/Quantize/w/both/R:5120/C:2048/manual_time").kind,
            ParsedName::Kind::kQuantize);
}

TEST(CaseName, RecognisesQuantizationCases) {
  const ParsedName parsed =
      parse_case_name("MXFP8/Quantize/activation/rowwise/R:8192/C:4096/manual_time");
  EXPECT_EQ(parsed.kind, ParsedName::Kind::kQuantize);
  // A grouped operand: every expert's rows, quantized whole.
  const ParsedName grouped =
      parse_case_name("FP8Current/Quantize/x/rowwise/G:128/R:32768/C:2048/manual_time");
  EXPECT_EQ(grouped.kind, ParsedName::Kind::kQuantize);
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
    ::testing::Values(
        BadName{"FP16/Fprop/qkv/native/M:1/K:2/N:3", "unknown precision 'FP16'"},
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
        BadName{"BF16/Fprop/qkv/native/M:1/K:2/N:3/extra", "unexpected field 'extra'"},
        BadName{"MXFP8/Quantize/weight/rowwise/R:128",
                "quantization case without R:{rows}/C:{cols}"},
        BadName{"FP8Block/Quantize/x/rowwise/G:4/R:128",
                "quantization case without R:{rows}/C:{cols}"},
        BadName{"FP8Block/Quantize/x/rowwise/G:0/R:128/C:256",
                "expected G:{groups} with a positive integer, got 'G:0'"},
        BadName{"FP8Block/Quantize/x/rowwise/R:128/C:256/G:4", "unexpected field 'G:4'"},
        BadName{"BF16/Fprop/router/native/M:1/K:2/N:3", "unknown op 'router'"},
        BadName{"BF16/Fprop/expert_up/native/M:1/K:2/N:3",
                "grouped op 'expert_up' needs G:{groups} before M:{m}"},
        BadName{"BF16/Fprop/expert_down/native/M:1/G:4/K:2/N:3",
                "grouped op 'expert_down' needs G:{groups} before M:{m}"},
        BadName{"BF16/Fprop/expert_up/native/g:4/M:1/K:2/N:3",
                "grouped op 'expert_up' needs G:{groups} before M:{m}"},
        BadName{"BF16/Fprop/expert_up/native/G:0/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got 'G:0'"},
        BadName{"BF16/Fprop/expert_up/native/G:-1/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got 'G:-1'"},
        BadName{"BF16/Fprop/expert_up/native/G:x/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got 'G:x'"},
        BadName{"BF16/Fprop/expert_up/native/G:/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got 'G:'"},
        BadName{"BF16/Fprop/expert_up/native/G:+4/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got 'G:+4'"},
        BadName{"BF16/Fprop/expert_up/native/G:99999999999999999999/M:1/K:2/N:3",
                "expected G:{groups} with a positive integer, got "
                "'G:99999999999999999999'"},
        BadName{"BF16/Fprop/qkv/native/G:4/M:1/K:2/N:3",
                "'G:4' on op 'qkv': only grouped ops (expert_up, expert_down) have "
                "G:{groups}"},
        BadName{"BF16/Fprop/shared_up/native/G:4/M:1/K:2/N:3",
                "'G:4' on op 'shared_up': only grouped ops (expert_up, expert_down) "
                "have G:{groups}"},
        BadName{"BF16/Fprop/gemm0/native/G:x/M:1/K:2/N:3",
                "'G:x' on op 'gemm0': only grouped ops (expert_up, expert_down) "
                "have G:{groups}"},
        BadName{"BF16/Fprop/expert_up/native/G:4/M:1/K:2",
                "fewer fields than {Precision}/{Pass}/{op}/{mode}/G/M/K/N"},
        BadName{"BF16/Fprop/expert_up/native/G:4/G:4/M:1/K:2/N:3",
                "expected M:{m}/K:{k}/N:{n} with positive integers"},
        BadName{"BF16/Fprop/expert_up/native/G:4/M:1/K:2/N:3/G:4", "unexpected field 'G:4'"}));

TEST(CaseName, ShapesGemmIndex) {
  EXPECT_EQ(shapes_gemm_index("gemm0"), 0);
  EXPECT_EQ(shapes_gemm_index("gemm17"), 17);
  EXPECT_EQ(shapes_gemm_index("gemm"), std::nullopt);
  EXPECT_EQ(shapes_gemm_index("qkv"), std::nullopt);
  EXPECT_TRUE(is_model_op("attn_out"));
  EXPECT_FALSE(is_model_op("gemm0"));
  EXPECT_FALSE(is_model_op("router")) << "the router is not timed: not an op";
}

}  // namespace
}  // namespace gemmscope::report
