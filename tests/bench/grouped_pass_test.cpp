// Every recipe's grouped (expert) GEMM, through every --grouped implementation this build and
// GPU can run, expert by expert against the reference GEMM of the operands it read: ragged
// row counts that need padding, balanced and skewed routing of a small MoE config, fresh random
// data, every expert's output poisoned with NaN first (verify_case). An implementation that
// cannot run a recipe says why, and the test prints it; the loop must run every recipe.

#include <gtest/gtest.h>

#include <iostream>

#include "bench/recipes/recipe.h"
#include "bench/verification.h"
#include "kernels/deepgemm/grouped_gemm.h"
#include "quant/base/unsupported.h"
#include "shapes/gemm_shape.h"
#include "shapes/routing.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

// A small MoE layer: 8 experts, top-2, 192 tokens on each of 2 expert-parallel ranks.
ModelConfig small_moe() {
  ModelConfig c;
  c.name = "test-moe";
  c.hidden_size = 256;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 4;
  c.num_hidden_layers = 2;
  c.micro_batch_size = 1;
  c.sequence_length = 192;
  c.gated_mlp = true;
  c.num_experts = 8;
  c.num_experts_per_token = 2;
  c.moe_intermediate_size = 160;
  c.expert_parallel = 2;
  return c;
}

LayerGemm grouped_gemm(Pass pass, const std::vector<int64_t>& rows, int64_t in, int64_t out) {
  LayerGemm gemm;
  gemm.pass = pass;
  gemm.op = "expert_up";
  gemm.group_rows = rows;
  int64_t tokens = 0;
  for (const int64_t r : rows)
    tokens += r;
  gemm.dims = {tokens, in, out};
  gemm.shape = gemm_shape(pass, gemm.dims);
  gemm.layers = 1;
  return gemm;
}

struct GroupedCase {
  std::string what;
  LayerGemm gemm;
};

std::vector<GroupedCase> grouped_cases(Pass pass) {
  std::vector<GroupedCase> cases;
  // Rows of no alignment at all; 1 and 257 straddle every padding multiple.
  cases.push_back({"ragged", grouped_gemm(pass, {17, 130, 1, 257, 64}, 416, 224)});
  for (const char* routing : {"balanced", "skewed:1.5"}) {
    const ModelConfig config = small_moe();
    const RankRouting rank = route_tokens(config, parse_routing(routing));
    std::vector<int64_t> rows;
    for (const int64_t r : rank.rows) {
      if (r > 0)
        rows.push_back(r);  // experts without rows are not groups
    }
    cases.push_back(
        {routing, grouped_gemm(pass, rows, config.hidden_size, 2 * config.moe_intermediate_size)});
  }
  return cases;
}

class GroupedPass : public ::testing::TestWithParam<Pass> {};

TEST_P(GroupedPass, EveryRecipeAndImplementationMatchesReferencePerExpert) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  int loop_verified = 0;
  int deepgemm_verified = 0;  // FP8Block products through DeepGEMM's m-grouped kernel
  int deepgemm_compiled = 0;  // ... those through its FP8 kernels compiled for the case's N, K
  int deepgemm_bf16 = 0;      // BF16 products through DeepGEMM's m-grouped kernel (compiled so)
  for (const std::unique_ptr<Recipe>& recipe : all_recipes({/*emulate=*/true})) {
    if (!recipe->unsupported_reason(device).empty())
      continue;
    for (const GemmProvider& implementation : grouped_providers()) {
      for (const Mode mode : recipe->modes()) {
        for (const GroupedCase& c : grouped_cases(GetParam())) {
          const std::string what = recipe->name() + " " + pass_name(GetParam()) + " " +
                                   mode_name(mode) + " " + c.what + " via " + implementation.name;
          RecipeContext context{device, cublas, AlgorithmChoice::kHeuristic, nullptr,
                                ImplementationList::only({&implementation})};
          std::unique_ptr<GemmCase> gemm_case;
          try {
            gemm_case = recipe->prepare(CaseSpec{c.gemm, mode}, context);
          } catch (const Unsupported& e) {
            EXPECT_STRNE(implementation.name, "loop") << what << ": " << e.what();
            std::cout << what << ": not run (" << e.what() << ")\n";
            continue;
          }
          // Every configuration the implementation offers (timing would choose among them).
          for (size_t a = 0; a < gemm_case->alternatives(); ++a) {
            gemm_case->use_alternative(a);
            const Verification v = verify_case(*gemm_case, nullptr);
            EXPECT_TRUE(v.passed())
                << what << ": " << v.failure_message() << " (" << gemm_case->label() << ")";
            EXPECT_EQ(v.groups, static_cast<int64_t>(c.gemm.group_rows.size())) << what;
            if (recipe->quantized_passes().has(GetParam())) {
              ASSERT_TRUE(v.recipe_err.has_value()) << what;
              EXPECT_LT(*v.recipe_err, recipe->name() == "NVFP4" ? 0.3 : 0.1) << what;
            }
            std::cout << what << ": rel_err " << v.rel_err << " padded_rows "
                      << gemm_case->padded_rows() << " (" << gemm_case->label() << ")\n";
            if (recipe->name() != "BF16" &&
                gemm_case->label().find(kDeepGemmCompiledLabel) != std::string::npos)
              ++deepgemm_compiled;
          }
          if (implementation.name == std::string("loop"))
            ++loop_verified;
          if (implementation.name == std::string("deepgemm")) {
            const int alternatives = static_cast<int>(gemm_case->alternatives());
            (recipe->name() == "BF16" ? deepgemm_bf16 : deepgemm_verified) += alternatives;
          }
        }
      }
    }
  }
  EXPECT_GT(loop_verified, 0);
  // Where DeepGEMM is built and its kernels' GPU is here, its FP8Block Fprop and Dgrad must run
  // (and its BF16 ones, compiled at run time): a layout check that refused them all would
  // otherwise pass unseen.
  const GemmProvider* deepgemm = find_provider(grouped_providers(), "deepgemm");
  const bool deepgemm_runs_here = deepgemm != nullptr && deepgemm->reads_stacked_row_scales &&
                                  device.cc_major == 9 && device.cc_minor == 0 &&
                                  device.sm_count == 132;
  if (deepgemm_runs_here && GetParam() != Pass::kWgrad) {
    EXPECT_GT(deepgemm_verified, 0);
    // ... and, where the run-time compile is on, so must its compiled kernels (a compile that
    // always fell back to the built ones would otherwise pass unseen).
    if (deepgemm_grouped_jit_enabled()) {
      EXPECT_GT(deepgemm_compiled, 0);
      EXPECT_GT(deepgemm_bf16, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPass, GroupedPass,
                         ::testing::Values(Pass::kFprop, Pass::kDgrad, Pass::kWgrad),
                         [](const auto& info) { return std::string(pass_name(info.param)); });

}  // namespace
}  // namespace gemmscope
