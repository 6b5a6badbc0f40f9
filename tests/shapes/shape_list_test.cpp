#include "shapes/shape_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::HasSubstr;

std::string refusal(const std::string& text) {
  return invalid_argument_message([&] { parse_shape_list(text); });
}

TEST(ParseShapeList, ParsesOneShape) {
  EXPECT_EQ(parse_shape_list("15872x4096x12288"), (std::vector<GemmShape>{{15872, 4096, 12288}}));
}

TEST(ParseShapeList, ParsesSeveralInOrder) {
  EXPECT_EQ(parse_shape_list("1x2x3,4096x8192x16384,7x7x7"),
            (std::vector<GemmShape>{{1, 2, 3}, {4096, 8192, 16384}, {7, 7, 7}}));
}

TEST(ParseShapeList, AcceptsTheLargestDimension) {
  EXPECT_EQ(parse_shape_list("2147483647x1x1"), (std::vector<GemmShape>{{2147483647, 1, 1}}));
}

TEST(ParseShapeList, IgnoresBlanksAroundItems) {
  EXPECT_EQ(parse_shape_list(" 1x2x3 ,\t4x5x6,  7x8x9\t"),
            (std::vector<GemmShape>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
}

TEST(ParseShapeListRefusal, EmptyOrBlankList) {
  for (const char* text : {"", " ", "\t"}) {
    const std::string message = refusal(text);
    EXPECT_THAT(message, HasSubstr("--shapes="));
    EXPECT_THAT(message, HasSubstr("lists no GEMM"));
  }
}

TEST(ParseShapeListRefusal, EmptyItemsNameTheirPosition) {
  EXPECT_THAT(refusal("1x2x3,,4x5x6"), HasSubstr("item 1 (counting from 0) is empty"));
  EXPECT_THAT(refusal("1x2x3,"), HasSubstr("item 1 (counting from 0) is empty"));
  EXPECT_THAT(refusal(",1x2x3"), HasSubstr("item 0 (counting from 0) is empty"));
  EXPECT_THAT(refusal("1x2x3, ,4x5x6"), HasSubstr("item 1 (counting from 0) is empty"));
}

TEST(ParseShapeListRefusal, WrongNumberOfDimensions) {
  EXPECT_THAT(refusal("4096"), HasSubstr("'4096' has 1 dimension, not three"));
  EXPECT_THAT(refusal("1x2x3,4096x4096"), HasSubstr("'4096x4096' has 2 dimensions, not three"));
  EXPECT_THAT(refusal("1x2x3x4"), HasSubstr("'1x2x3x4' has 4 dimensions, not three"));
}

TEST(ParseShapeListRefusal, BadDimensionsNameTheItemAndTheDimension) {
  EXPECT_THAT(refusal("1x2x3,4096x0x8"),
              HasSubstr("item 1 (counting from 0) '4096x0x8': K='0' is not positive"));
  EXPECT_THAT(refusal("-1x2x3"), HasSubstr("M='-1' is not positive"));
  EXPECT_THAT(refusal("1x2xabc"), HasSubstr("N='abc' is not a decimal integer"));
  EXPECT_THAT(refusal("1x2x3abc"), HasSubstr("N='3abc' is not a decimal integer"));
  EXPECT_THAT(refusal("1x2x"), HasSubstr("N='' is empty"));
  EXPECT_THAT(refusal("x2x3"), HasSubstr("M='' is empty"));
  EXPECT_THAT(refusal("1x2147483648x3"),
              HasSubstr("K='2147483648' exceeds the maximum 2147483647"));
  EXPECT_THAT(refusal("99999999999999999999x1x1"), HasSubstr("exceeds the maximum 2147483647"));
}

TEST(ParseShapeListRefusal, BlanksInsideAnItem) {
  EXPECT_THAT(refusal("4096 x4096x4096"), HasSubstr("M='4096 ' is not a decimal integer"));
  EXPECT_THAT(refusal("4096x 4096x4096"), HasSubstr("K=' 4096' is not a decimal integer"));
}

TEST(ParseShapeListRefusal, OnlyLowercaseXSeparates) {
  EXPECT_THAT(refusal("4096X4096X4096"),
              HasSubstr("'4096X4096X4096' separates with 'X'; use a lowercase 'x'"));
  EXPECT_THAT(refusal("4096*4096*4096"), HasSubstr("has 1 dimension, not three"));
}

TEST(ParseShapeListRefusal, MessageQuotesTheWholeList) {
  EXPECT_THAT(refusal("8x8x8,8x8"), HasSubstr("--shapes=8x8x8,8x8:"));
  EXPECT_THAT(refusal("8x8x8,8x8"), HasSubstr("e.g. --shapes="));
}

}  // namespace
}  // namespace gemmscope
