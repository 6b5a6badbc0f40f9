#include "shapes/gemm_shape.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace gemmscope {
namespace {

TEST(PassName, IsTheCaseNameToken) {
  EXPECT_STREQ(pass_name(Pass::kFprop), "Fprop");
  EXPECT_STREQ(pass_name(Pass::kDgrad), "Dgrad");
  EXPECT_STREQ(pass_name(Pass::kWgrad), "Wgrad");
}

TEST(GemmShape, FlopsCountOneMultiplyAndOneAddPerTerm) {
  EXPECT_DOUBLE_EQ((GemmShape{3, 5, 7}.flops()), 2.0 * 3 * 5 * 7);
  // Large enough that an int32 product would overflow.
  EXPECT_DOUBLE_EQ((GemmShape{15872, 4096, 12288}.flops()), 1597727834112.0);
}

TEST(GemmShape, PrintsAsMxKxN) {
  EXPECT_EQ(to_string(GemmShape{15872, 4096, 12288}), "15872x4096x12288");
  std::ostringstream out;
  out << GemmShape{1, 2, 3};
  EXPECT_EQ(out.str(), "1x2x3");
}

TEST(GemmShape, EqualityComparesAllThreeDimensions) {
  EXPECT_EQ((GemmShape{1, 2, 3}), (GemmShape{1, 2, 3}));
  EXPECT_NE((GemmShape{1, 2, 3}), (GemmShape{9, 2, 3}));
  EXPECT_NE((GemmShape{1, 2, 3}), (GemmShape{1, 9, 3}));
  EXPECT_NE((GemmShape{1, 2, 3}), (GemmShape{1, 2, 9}));
}

// X [tokens=10, in=20], W [out=30, in=20], dY [10, 30].
const LinearDims kDims{10, 20, 30};

TEST(GemmShapeOfPass, FpropIsTokensByInByOut) {
  EXPECT_EQ(gemm_shape(Pass::kFprop, kDims), (GemmShape{10, 20, 30}));
}

TEST(GemmShapeOfPass, DgradContractsOverOutFeatures) {
  EXPECT_EQ(gemm_shape(Pass::kDgrad, kDims), (GemmShape{10, 30, 20}));
}

TEST(GemmShapeOfPass, WgradContractsOverTokens) {
  EXPECT_EQ(gemm_shape(Pass::kWgrad, kDims), (GemmShape{20, 10, 30}));
}

TEST(GemmShapeOfPass, EveryPassDoesTheSameWork) {
  for (Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
    EXPECT_DOUBLE_EQ(gemm_shape(pass, kDims).flops(), 2.0 * 10 * 20 * 30) << pass_name(pass);
  }
}

TEST(LinearDimsOfPass, InvertsGemmShapeForEveryPass) {
  const LinearDims cases[] = {{10, 20, 30}, {15872, 4096, 12288}, {1, 1, 7}, {8192, 28672, 8192}};
  for (Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
    for (const LinearDims& dims : cases) {
      EXPECT_EQ(linear_dims(pass, gemm_shape(pass, dims)), dims) << pass_name(pass);
    }
    const GemmShape shape{11, 13, 17};
    EXPECT_EQ(gemm_shape(pass, linear_dims(pass, shape)), shape) << pass_name(pass);
  }
}

TEST(MaxGemmDimension, IsTheLargestInt32) {
  EXPECT_EQ(kMaxGemmDimension, 2147483647);
}

}  // namespace
}  // namespace gemmscope
