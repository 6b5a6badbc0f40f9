// make_workload in --shapes mode: GEMMs as given, named gemm0.., never mixed with model flags.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "shapes/workload.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::HasSubstr;

TEST(ShapesWorkload, OneFpropPerShapeNamedByPosition) {
  const Workload workload = make_workload({{"shapes", "8192x8192x8192, 15872x4096x12288"}});
  EXPECT_EQ(workload.kind, Workload::Kind::kShapes);
  EXPECT_EQ(workload.shapes_text, "8192x8192x8192, 15872x4096x12288");
  ASSERT_EQ(workload.gemms.size(), 2u);
  EXPECT_EQ(workload.gemms[0].op, "gemm0");
  EXPECT_EQ(workload.gemms[1].op, "gemm1");
  for (const LayerGemm& gemm : workload.gemms)
    EXPECT_EQ(gemm.pass, Pass::kFprop);
  EXPECT_EQ(workload.gemms[0].shape, (GemmShape{8192, 8192, 8192}));
  EXPECT_EQ(workload.gemms[1].shape, (GemmShape{15872, 4096, 12288}));
  EXPECT_EQ(workload.gemms[1].dims, (LinearDims{15872, 4096, 12288}));
}

TEST(ShapesWorkload, NamesCountFromZeroPastNine) {
  std::string list;
  for (int i = 1; i <= 12; ++i)
    list += (i > 1 ? "," : "") + std::to_string(i) + "x1x1";
  const Workload workload = make_workload({{"shapes", list}});
  ASSERT_EQ(workload.gemms.size(), 12u);
  EXPECT_EQ(workload.gemms[11].op, "gemm11");
  EXPECT_EQ(workload.gemms[11].shape.m, 12);
}

TEST(ShapesWorkload, BadListIsRefusedNamingShapes) {
  const std::string message = invalid_argument_message([] {
    make_workload({{"shapes", "1x2x3,0x1x1"}});
  });
  EXPECT_THAT(message, HasSubstr("--shapes=1x2x3,0x1x1"));
  EXPECT_THAT(message, HasSubstr("M='0' is not positive"));
}

TEST(ShapesWorkloadRefusal, CannotBeMixedWithAnyModelFlag) {
  for (const std::string& flag : workload_flag_names()) {
    if (flag == "shapes")
      continue;
    const std::string value = flag == "model" ? "llama3-8b" : flag == "gated_mlp" ? "true" : "8";
    const std::string message = invalid_argument_message([&] {
      make_workload({{"shapes", "1x2x3"}, {flag, value}});
    });
    EXPECT_THAT(message, HasSubstr("--shapes cannot be combined with model flags")) << flag;
    EXPECT_THAT(message, HasSubstr("--" + flag + "=" + value)) << flag;
  }
}

TEST(ShapesWorkloadRefusal, MixingIsRefusedBeforeTheListIsParsed) {
  // The conflict is the user's first problem, whatever the list holds.
  const std::string message = invalid_argument_message([] {
    make_workload({{"shapes", "garbage"}, {"hidden_size", "4096"}, {"model", "x"}});
  });
  EXPECT_THAT(message, HasSubstr("--hidden_size=4096"));
  EXPECT_THAT(message, HasSubstr("--model=x"));
}

}  // namespace
}  // namespace gemmscope
