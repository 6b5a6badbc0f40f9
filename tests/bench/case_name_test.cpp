#include <gtest/gtest.h>

#include "bench/case_spec.h"
#include "shapes/layer_gemms.h"
#include "shapes/model_config.h"

namespace gemmscope {
namespace {

TEST(CaseName, FollowsTheDesignScheme) {
  const std::vector<LayerGemm> gemms = layer_gemms(ModelConfig{});
  EXPECT_EQ(case_name("BF16", {gemms[0], Mode::kNative}),
            "BF16/Fprop/qkv/native/M:15872/K:4096/N:12288");
  EXPECT_EQ(case_name("FP8Current", {gemms[5], Mode::kAutocast}),
            "FP8Current/Dgrad/attn_out/autocast/M:15872/K:4096/N:4096");
  EXPECT_EQ(case_name("NVFP4", {gemms[11], Mode::kPrequant}),
            "NVFP4/Wgrad/mlp_down/prequant/M:16384/K:15872/N:4096");
}

TEST(CaseName, GroupedGemmsCarryTheirGroupCountBeforeTheSizes) {
  LayerGemm gemm;
  gemm.pass = Pass::kWgrad;
  gemm.op = "expert_up";
  gemm.group_rows = {100, 28, 128};
  gemm.dims = {256, 2048, 1536};
  gemm.shape = gemm_shape(gemm.pass, gemm.dims);
  EXPECT_EQ(case_name("FP8Block", {gemm, Mode::kPrequant}),
            "FP8Block/Wgrad/expert_up/prequant/G:3/M:2048/K:256/N:1536");
}

}  // namespace
}  // namespace gemmscope
