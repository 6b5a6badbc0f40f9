#include "bench/case_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;

const std::string kBf16Wgrad = "BF16/Wgrad/qkv/native/M:4096/K:15872/N:12288";
const std::string kFp8Wgrad = "FP8Current/Wgrad/qkv/autocast/M:4096/K:15872/N:12288";
const std::string kQuantize = "FP8Current/Quantize/x/rowwise/R:15872/C:4096";

TEST(CaseFilter, SubstringSearch) {
  const CaseFilter filter("BF16/Wgrad");
  EXPECT_TRUE(filter.selects(kBf16Wgrad));
  EXPECT_FALSE(filter.selects(kFp8Wgrad));
  EXPECT_FALSE(filter.selects(kQuantize));
  const CaseFilter wgrad("Wgrad");
  EXPECT_TRUE(wgrad.selects(kBf16Wgrad));
  EXPECT_TRUE(wgrad.selects(kFp8Wgrad));
  EXPECT_FALSE(wgrad.selects(kQuantize));
}

TEST(CaseFilter, AnchoredAtTheStart) {
  const CaseFilter filter("^BF16/Wgrad");
  EXPECT_TRUE(filter.selects(kBf16Wgrad));
  EXPECT_FALSE(filter.selects(kFp8Wgrad));
  EXPECT_FALSE(CaseFilter("^Wgrad").selects(kBf16Wgrad));
  EXPECT_TRUE(CaseFilter("FP8Current/Wgrad").selects(kFp8Wgrad));
  EXPECT_FALSE(CaseFilter("FP8Current/Wgrad").selects(kBf16Wgrad));
}

TEST(CaseFilter, MatchesTheNameWithManualTime) {
  EXPECT_TRUE(CaseFilter("/manual_time$").selects(kBf16Wgrad));
  EXPECT_TRUE(CaseFilter("N:12288/manual_time").selects(kBf16Wgrad));
  EXPECT_FALSE(CaseFilter("N:12288$").selects(kBf16Wgrad));
  EXPECT_FALSE(CaseFilter("-/manual_time$").selects(kBf16Wgrad));
}

TEST(CaseFilter, ExtendedRegularExpressions) {
  const CaseFilter filter("^(BF16|FP8Current)/W[a-z]+/qkv");
  EXPECT_TRUE(filter.selects(kBf16Wgrad));
  EXPECT_TRUE(filter.selects(kFp8Wgrad));
  EXPECT_FALSE(filter.selects(kQuantize));
  EXPECT_TRUE(CaseFilter("M:[0-9]{4}/").selects(kBf16Wgrad));
  EXPECT_FALSE(CaseFilter("M:[0-9]{5}/").selects(kBf16Wgrad));
}

TEST(CaseFilter, LeadingMinusNegates) {
  const CaseFilter filter("-BF16");
  EXPECT_FALSE(filter.selects(kBf16Wgrad));
  EXPECT_TRUE(filter.selects(kFp8Wgrad));
  EXPECT_TRUE(filter.selects(kQuantize));
  const CaseFilter no_quantize("-/Quantize/");
  EXPECT_TRUE(no_quantize.selects(kBf16Wgrad));
  EXPECT_FALSE(no_quantize.selects(kQuantize));
}

TEST(CaseFilter, EmptyAndAllSelectEverything) {
  for (const char* text : {"", "all"}) {
    const CaseFilter filter(text);
    EXPECT_TRUE(filter.selects(kBf16Wgrad)) << text;
    EXPECT_TRUE(filter.selects(kFp8Wgrad)) << text;
    EXPECT_TRUE(filter.selects(kQuantize)) << text;
  }
  // "all" is a keyword only on its own.
  EXPECT_FALSE(CaseFilter("^all").selects(kBf16Wgrad));
}

TEST(CaseFilter, BadExpressionThrowsNamingTheFlag) {
  for (const char* text : {"[", "(BF16", "-[", "a{2,1}"}) {
    try {
      CaseFilter filter(text);
      ADD_FAILURE() << text << ": no std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("--benchmark_filter=") + text));
    }
  }
}

}  // namespace
}  // namespace gemmscope
