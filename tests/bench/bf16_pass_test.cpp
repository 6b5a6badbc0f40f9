// Each BF16 pass, in the layout frameworks launch it, against the reference GEMM: odd sizes,
// fresh random inputs, an output buffer poisoned with NaN before the GEMM runs.

#include <gtest/gtest.h>

#include "bench/pass_tensors.h"
#include "bench/recipes/recipe.h"
#include "bench/verification.h"
#include "shapes/gemm_shape.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

struct PassCase {
  Pass pass;
  AlgorithmChoice algorithm;
};

void PrintTo(const PassCase& c, std::ostream* out) {
  *out << pass_name(c.pass) << (c.algorithm == AlgorithmChoice::kAutotune ? " autotuned" : "");
}

class Bf16Pass : public ::testing::TestWithParam<PassCase> {};

TEST_P(Bf16Pass, MatchesReferenceOnOddSizes) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  const std::unique_ptr<Recipe> bf16 = std::move(all_recipes().front());
  ASSERT_EQ(bf16->name(), "BF16");
  for (const LinearDims dims : {LinearDims{77, 136, 200}, LinearDims{1000, 392, 72},
                                LinearDims{64, 1032, 520}, LinearDims{33, 131, 97}}) {
    LayerGemm gemm;
    gemm.pass = GetParam().pass;
    gemm.op = "test";
    gemm.dims = dims;
    gemm.shape = gemm_shape(gemm.pass, dims);
    const std::unique_ptr<GemmCase> runner =
        bf16->prepare(CaseSpec{gemm, Mode::kNative},
                      RecipeContext{device, cublas, GetParam().algorithm, nullptr});
    const Verification v = verify_case(*runner, nullptr);
    EXPECT_TRUE(v.passed()) << pass_name(gemm.pass) << " " << dims << ": " << v.failure_message();
    EXPECT_GT(v.rel_err, 0.0) << "BF16 output rounding should leave some error";
    EXPECT_FALSE(v.recipe_err.has_value());
    EXPECT_FALSE(runner->label().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPass, Bf16Pass,
                         ::testing::Values(PassCase{Pass::kFprop, AlgorithmChoice::kHeuristic},
                                           PassCase{Pass::kDgrad, AlgorithmChoice::kHeuristic},
                                           PassCase{Pass::kWgrad, AlgorithmChoice::kHeuristic},
                                           PassCase{Pass::kWgrad, AlgorithmChoice::kAutotune}),
                         [](const auto& info) {
                           return std::string(pass_name(info.param.pass)) +
                                  (info.param.algorithm == AlgorithmChoice::kAutotune
                                       ? "Autotuned"
                                       : "Heuristic");
                         });

}  // namespace
}  // namespace gemmscope
