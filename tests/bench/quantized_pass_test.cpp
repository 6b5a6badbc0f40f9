// Every quantizing recipe's GEMM, in every pass and mode, against the reference GEMM of the
// operands it read (dequantized): odd sizes with partial 128-blocks, random data whose block
// scales differ from block to block, an output buffer poisoned with NaN. A wrong scale layout
// scales some blocks by the wrong factor and fails by orders of magnitude. MXFP8 and NVFP4 run
// natively on Blackwell and through the emulated GEMM elsewhere.

#include <gtest/gtest.h>

#include "bench/recipes/recipe.h"
#include "bench/verification.h"
#include "shapes/gemm_shape.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

class QuantizedPass : public ::testing::TestWithParam<Pass> {};

TEST_P(QuantizedPass, EveryRecipeAndModeMatchesReference) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  int verified = 0;
  for (const std::unique_ptr<Recipe>& recipe : all_recipes({/*emulate=*/true})) {
    if (!recipe->quantizes())
      continue;
    const std::string unsupported = recipe->unsupported_reason(device);
    if (!unsupported.empty()) {
      std::cout << recipe->name() << " skipped: " << unsupported << "\n";
      continue;
    }
    for (const Mode mode : recipe->modes()) {
      // Multiples of 32 (MXFP8's block), not of 128: FP8Block's edge blocks are partial.
      for (const LinearDims dims :
           {LinearDims{288, 416, 224}, LinearDims{128, 256, 384}, LinearDims{1056, 160, 96}}) {
        LayerGemm gemm;
        gemm.pass = GetParam();
        gemm.op = "test";
        gemm.dims = dims;
        gemm.shape = gemm_shape(gemm.pass, dims);
        const std::string what = recipe->name() + " " + pass_name(gemm.pass) + " " +
                                 mode_name(mode) + " " + ::testing::PrintToString(dims);
        const std::unique_ptr<GemmCase> gemm_case =
            recipe->prepare(CaseSpec{gemm, mode},
                            RecipeContext{device, cublas, AlgorithmChoice::kHeuristic, nullptr});
        const Verification v = verify_case(*gemm_case, nullptr);
        EXPECT_TRUE(v.passed()) << what << ": " << v.failure_message();
        if (!recipe->quantized_passes().has(gemm.pass)) {  // BF16's GEMM on the BF16 inputs
          EXPECT_FALSE(v.recipe_err.has_value()) << what;
          ++verified;
          continue;
        }
        ASSERT_TRUE(v.recipe_err.has_value()) << what;
        // E4M3/E5M2 data lands a few percent from the BF16 product, E2M1 (one mantissa bit)
        // about ten times further; anything beyond these is a broken recipe.
        EXPECT_LT(*v.recipe_err, recipe->name() == "NVFP4" ? 0.3 : 0.1) << what;
        EXPECT_GT(*v.recipe_err, v.rel_err) << what << ": quantization should cost something";
        std::cout << what << ": rel_err " << v.rel_err << " recipe_err " << *v.recipe_err << " ("
                  << gemm_case->label() << ")\n";
        ++verified;
      }
    }
  }
  EXPECT_GT(verified, 0) << "no quantizing recipe ran on this GPU";
}

INSTANTIATE_TEST_SUITE_P(EveryPass, QuantizedPass,
                         ::testing::Values(Pass::kFprop, Pass::kDgrad, Pass::kWgrad),
                         [](const auto& info) { return std::string(pass_name(info.param)); });

}  // namespace
}  // namespace gemmscope
