// Step cases on the GPU: what their timed work launches, call by call, counted by the kernel
// timer (CUPTI), against the same GEMM in prequant mode; and that their GEMM is still right
// after many calls. The accounting itself is pinned on the host (pass_quantization_test.cpp).

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/recipes/recipe.h"
#include "bench/timing/kernel_timer.h"
#include "bench/verification.h"
#include "quant/base/cuda_check.h"
#include "shapes/gemm_shape.h"
#include "tests/bench/small_layer_gemm.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

constexpr int kMicrobatches = 3;
constexpr int kCalls = 2 * kMicrobatches;

// How many kernels (and memsets) each of kCalls enqueue() calls launched.
std::vector<size_t> launches_per_call(GemmCase& gemm_case, KernelTimer& timer) {
  timer.begin();
  for (int call = 0; call < kCalls; ++call) {
    timer.enter(static_cast<std::uint64_t>(call));
    gemm_case.enqueue(nullptr);
    timer.leave();
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::map<std::uint64_t, std::vector<KernelActivity>> calls = timer.end();
  std::vector<size_t> counts(kCalls, 0);
  for (const auto& [call, activities] : calls)
    counts.at(call) = activities.size();
  return counts;
}

TEST(StepCase, QuantizesWhatATrainerDoesWhereItDoesItAndTheWeightOncePerMicrobatches) {
  GEMMSCOPE_REQUIRE_GPU();
  KernelTimer timer;
  if (!timer.available())
    GTEST_SKIP() << "no kernel timer: " << timer.unavailable_reason();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  int checked = 0;
  for (const std::unique_ptr<Recipe>& recipe : all_recipes({/*emulate=*/true})) {
    if (!recipe->quantizes() || !recipe->unsupported_reason(device).empty())
      continue;
    RecipeContext context{device, cublas, AlgorithmChoice::kHeuristic, nullptr};
    context.provider = ImplementationList::only({find_provider(dense_providers(), "cublaslt")});
    context.microbatches = kMicrobatches;
    for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
      const std::string what = recipe->name() + " " + pass_name(pass);
      const std::unique_ptr<GemmCase> step =
          recipe->prepare({testing::small_layer_gemm(pass), Mode::kStep}, context);
      const std::unique_ptr<GemmCase> gemms =
          recipe->prepare({testing::small_layer_gemm(pass), Mode::kPrequant}, context);
      const std::vector<size_t> step_calls = launches_per_call(*step, timer);
      const std::vector<size_t> gemm_calls = launches_per_call(*gemms, timer);
      const size_t gemm = gemm_calls.front();
      EXPECT_EQ(gemm_calls, std::vector<size_t>(kCalls, gemm)) << what;
      if (recipe->step_casts() == StepCasts::kAtEachGemm && recipe->quantized_passes().has(pass)) {
        // torchao's rowwise trainer: each GEMM casts its operands, every call, as autocast.
        const std::unique_ptr<GemmCase> autocast =
            recipe->prepare({testing::small_layer_gemm(pass), Mode::kAutocast}, context);
        EXPECT_EQ(step->period(), 1u) << what;
        EXPECT_EQ(step_calls, launches_per_call(*autocast, timer)) << what;
        EXPECT_GT(step_calls[0], gemm) << what;
      } else {
        switch (pass) {
          case Pass::kFprop:  // X every call; W too on calls 0 and kMicrobatches
            EXPECT_EQ(step->period(), static_cast<size_t>(kMicrobatches)) << what;
            for (int call = 0; call < kCalls; ++call) {
              const size_t expected = call % kMicrobatches == 0 ? step_calls[0] : step_calls[1];
              EXPECT_EQ(step_calls[call], expected) << what << " call " << call;
            }
            EXPECT_GT(step_calls[1], gemm) << what << ": X is quantized every call";
            EXPECT_GT(step_calls[0], step_calls[1]) << what << ": W once per microbatches";
            break;
          case Pass::kDgrad:  // dY every call, W's copy saved by Fprop
            EXPECT_EQ(step->period(), 1u) << what;
            EXPECT_EQ(step_calls, std::vector<size_t>(kCalls, step_calls[0])) << what;
            EXPECT_GT(step_calls[0], gemm) << what;
            break;
          case Pass::kWgrad:  // the copies Fprop and Dgrad saved: the GEMM alone
            EXPECT_EQ(step->period(), 1u) << what;
            EXPECT_EQ(step_calls, gemm_calls) << what;
            break;
        }
      }
      // Still the right product after many calls (its copies rewritten in place), and close to
      // the BF16 one: a copy read with another step's scale would be far off (recipe_err).
      const Verification v = verify_case(*step, nullptr);
      EXPECT_TRUE(v.passed()) << what << ": " << v.failure_message();
      if (recipe->quantized_passes().has(pass)) {
        ASSERT_TRUE(v.recipe_err.has_value()) << what;
        EXPECT_LT(*v.recipe_err, recipe->name() == "NVFP4" ? 0.3 : 0.1) << what;
      } else {
        EXPECT_FALSE(v.recipe_err.has_value()) << what << ": a BF16 pass reads the BF16 inputs";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "no quantizing recipe ran on this GPU";
}

}  // namespace
}  // namespace gemmscope
