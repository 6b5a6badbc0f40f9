// No device memory is lost across a sweep: every case of every recipe (all passes and modes,
// MXFP8 and NVFP4 emulated where the GPU lacks their tensor cores), and every quantization
// case, is prepared, run, verified and destroyed back to back, and the device's free memory
// must come back to where it was.
//
// The baseline is taken after one warm round of every case: cuBLASLt and lazily loaded CUDA
// modules take device memory the first time a kernel runs and keep it for the process, which
// is not a leak. In the second round no case may take anything for good. cudaMemGetInfo
// counts whole driver pages, so each case is prepared and destroyed several times and its
// operands are several MiB each: a lost operand buffer shows even when one small allocation
// (a few scale bytes) would hide inside a page.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/quantize_case.h"
#include "bench/recipes/recipe.h"
#include "bench/verification.h"
#include "quant/base/unsupported.h"
#include "shapes/gemm_shape.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

constexpr int kCyclesPerCase = 5;

size_t free_device_bytes() {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  return free_bytes;
}

struct SweepCase {
  std::string what;
  std::function<void()> prepare_run_destroy;  // one full life of the case
};

// Every GEMM case and quantization case the recipes can run on this GPU.
std::vector<SweepCase> sweep(const std::vector<std::unique_ptr<Recipe>>& recipes,
                             const DeviceInfo& device, const CublasLtContext& cublas) {
  // 2048 x 1536 BF16 operands are 6 MiB; multiples of 128 suit every recipe's blocks.
  const LinearDims dims{2048, 1536, 1024};
  std::vector<SweepCase> cases;
  for (const std::unique_ptr<Recipe>& recipe : recipes) {
    if (!recipe->unsupported_reason(device).empty())
      continue;
    const Recipe* r = recipe.get();
    for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
      for (const Mode mode : recipe->modes()) {
        // A dense GEMM, and a grouped one of three experts (ragged rows, padded per recipe).
        LayerGemm dense{pass, "leak", dims, gemm_shape(pass, dims), 1, {}};
        LayerGemm grouped{pass, "expert_up", dims, gemm_shape(pass, dims), 1, {1000, 37, 1011}};
        for (const LayerGemm& gemm : {dense, grouped}) {
          cases.push_back({r->name() + " " + pass_name(pass) + " " + mode_name(mode) +
                               (gemm.grouped() ? " grouped" : ""),
                           [r, gemm, mode, &device, &cublas] {
                             const std::unique_ptr<GemmCase> work =
                                 r->prepare(CaseSpec{gemm, mode},
                                            RecipeContext{device, cublas,
                                                          AlgorithmChoice::kHeuristic, nullptr});
                             work->enqueue(nullptr);
                             verify_case(*work, nullptr);
                           }});
        }
      }
    }
    if (!recipe->quantizes())
      continue;
    // X's casts, and W's (some recipes list only the weight's, bench/recipes/recipe.h).
    for (const QuantizeSpec& tensor :
         {QuantizeSpec{
              TensorRole::kActivation, dims.tokens, dims.in_features, OperandCopies::kRowwise, {}},
          QuantizeSpec{TensorRole::kWeight,
                       dims.out_features,
                       dims.in_features,
                       OperandCopies::kRowwise,
                       {}}}) {
      for (const OperandCopies copies :
           {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
        if (!r->lists_quantization(tensor.role, copies))
          continue;
        QuantizeSpec spec = tensor;
        spec.copies = copies;
        cases.push_back({quantize_case_name(r->name(), spec), [r, spec] {
                           const std::unique_ptr<TimedWork> work = prepare_quantize_case(
                               *r, spec, /*stacked_row_scales=*/true, nullptr);
                           work->enqueue(nullptr);
                         }});
      }
    }
  }
  return cases;
}

// Runs the case's whole life, skipping what this GPU cannot run; false when skipped.
bool live(const SweepCase& sweep_case) {
  try {
    sweep_case.prepare_run_destroy();
  } catch (const Unsupported& unsupported) {
    std::cout << sweep_case.what << " skipped: " << unsupported.what() << "\n";
    return false;
  }
  return true;
}

TEST(DeviceMemoryLeak, EveryCaseGivesBackAllItsDeviceMemory) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  const std::vector<std::unique_ptr<Recipe>> recipes = all_recipes({/*emulate=*/true});
  const std::vector<SweepCase> cases = sweep(recipes, device, cublas);
  ASSERT_FALSE(cases.empty());

  std::vector<const SweepCase*> runnable;
  for (const SweepCase& sweep_case : cases) {
    if (live(sweep_case))
      runnable.push_back(&sweep_case);
  }
  ASSERT_FALSE(runnable.empty());
  const size_t baseline = free_device_bytes();
  for (const SweepCase* sweep_case : runnable) {
    for (int cycle = 0; cycle < kCyclesPerCase; ++cycle)
      sweep_case->prepare_run_destroy();
    const size_t now = free_device_bytes();
    EXPECT_GE(now, baseline) << sweep_case->what << " kept " << (baseline - now)
                             << " bytes of device memory after " << kCyclesPerCase
                             << " prepare/run/destroy cycles";
  }
}

}  // namespace
}  // namespace gemmscope
