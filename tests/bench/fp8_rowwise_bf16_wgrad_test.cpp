// FP8RowwiseBF16Wgrad (bench/recipes/fp8_rowwise_bf16_wgrad_recipe.h), torchao's
// "rowwise_with_gw_hp": on the host, what the recipe tells the planning and the accounting (Wgrad
// is BF16, Fprop and Dgrad FP8; the weight's Dgrad copy is tensorwise; fast accumulation in
// Fprop only; the step's copies; the quantization cases it lists); on a GPU, the copies its
// quantizers write (one scale repeated down the weight's Dgrad copy, FP8Rowwise's per-row copies
// elsewhere) and the BF16 GEMM its Wgrad cases run.

#include "bench/recipes/fp8_rowwise_bf16_wgrad_recipe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench/pass_quantization.h"
#include "bench/recipes/quantized_recipe.h"
#include "bench/verification.h"
#include "quant/fp8/detail/scale_policy.h"
#include "quant/fp8/format.h"
#include "quant/fp8/reference.h"
#include "shapes/gemm_shape.h"
#include "tests/bench/small_layer_gemm.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

constexpr const char* kName = "FP8RowwiseBF16Wgrad";

// The recipe as gemm_bench registers it (all_recipes), with the recipes it is compared to.
class Fp8RowwiseBf16Wgrad : public ::testing::Test {
 protected:
  const Recipe& recipe(const std::string& name) const {
    for (const std::unique_ptr<Recipe>& r : recipes_) {
      if (r->name() == name)
        return *r;
    }
    throw std::logic_error("no recipe " + name);
  }
  const QuantizedRecipe& quantized(const std::string& name) const {
    return dynamic_cast<const QuantizedRecipe&>(recipe(name));
  }

 private:
  std::vector<std::unique_ptr<Recipe>> recipes_ = all_recipes();
};

TEST_F(Fp8RowwiseBf16Wgrad, IsRegisteredRightAfterFp8RowwiseInTheModesFp8RowwiseHas) {
  std::vector<std::string> names;
  for (const std::unique_ptr<Recipe>& r : all_recipes())
    names.push_back(r->name());
  const auto rowwise = std::find(names.begin(), names.end(), "FP8Rowwise");
  ASSERT_NE(rowwise, names.end());
  ASSERT_NE(rowwise + 1, names.end());
  EXPECT_EQ(*(rowwise + 1), kName);
  EXPECT_TRUE(recipe(kName).quantizes());
  EXPECT_EQ(recipe(kName).modes(), recipe("FP8Rowwise").modes());
}

// torchao's grad_weight reads the BF16 input and grad_output (ScalingType.DISABLED): a Wgrad
// case that quantized would time another recipe.
TEST_F(Fp8RowwiseBf16Wgrad, WgradIsBf16AndFpropAndDgradFp8) {
  const QuantizedPasses passes = recipe(kName).quantized_passes();
  EXPECT_TRUE(passes.has(Pass::kFprop));
  EXPECT_TRUE(passes.has(Pass::kDgrad));
  EXPECT_FALSE(passes.has(Pass::kWgrad));
  for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad})
    EXPECT_TRUE(recipe("FP8Rowwise").quantized_passes().has(pass)) << pass_name(pass);
  EXPECT_FALSE(recipe("BF16").quantized_passes().has(Pass::kFprop));
}

// cc_w_gi = CastConfig(scaling_granularity=TENSORWISE): Dgrad's weight has one scale, which the
// GEMM reads repeated per row; Fprop's weight and both passes' X and dY are per row (AXISWISE).
TEST_F(Fp8RowwiseBf16Wgrad, DgradReadsTheWeightWithOneTensorwiseScale) {
  EXPECT_EQ(fp8_rowwise_bf16_wgrad_scaling(TensorRole::kWeight, /*columnwise=*/true),
            OuterVecScaling::kTensorwise);
  EXPECT_EQ(fp8_rowwise_bf16_wgrad_scaling(TensorRole::kWeight, false), OuterVecScaling::kPerRow);
  EXPECT_EQ(fp8_rowwise_bf16_wgrad_scaling(TensorRole::kActivation, false),
            OuterVecScaling::kPerRow);
  EXPECT_EQ(fp8_rowwise_bf16_wgrad_scaling(TensorRole::kGradient, false), OuterVecScaling::kPerRow);
}

// gemm_config_output fast, gemm_config_grad_input torchao's default (not fast); FP8Rowwise's the
// same for the passes the two share.
TEST_F(Fp8RowwiseBf16Wgrad, FastAccumulationInFpropOnly) {
  const QuantizedRecipe& r = quantized(kName);
  EXPECT_TRUE(r.fast_accumulation(Pass::kFprop));
  EXPECT_FALSE(r.fast_accumulation(Pass::kDgrad));
  for (const Pass pass : {Pass::kFprop, Pass::kDgrad}) {
    EXPECT_EQ(r.fast_accumulation(pass), quantized("FP8Rowwise").fast_accumulation(pass));
    EXPECT_EQ(r.tolerance(pass), quantized("FP8Rowwise").tolerance(pass));
  }
  EXPECT_EQ(r.group_row_alignment(), quantized("FP8Rowwise").group_row_alignment());
}

// What torchao's step casts: each FP8 GEMM its two operands from the BF16 tensors, every
// microbatch (Fprop X and W rowwise, Dgrad dY rowwise and W's tensorwise copy); nothing for the
// BF16 Wgrad. FP8Rowwise casts so too; TE's recipes into saved copies.
TEST_F(Fp8RowwiseBf16Wgrad, AStepCastsEachFp8GemmsOperandsAtThatGemm) {
  EXPECT_EQ(recipe(kName).step_casts(), StepCasts::kAtEachGemm);
  EXPECT_EQ(recipe("FP8Rowwise").step_casts(), StepCasts::kAtEachGemm);
  EXPECT_EQ(recipe("FP8Current").step_casts(), StepCasts::kSavedCopies);
  const QuantizedPasses passes = recipe(kName).quantized_passes();
  for (const Pass pass : {Pass::kFprop, Pass::kDgrad}) {
    const PassOperands step = pass_operands(pass, Mode::kStep, passes, StepCasts::kAtEachGemm);
    for (const OperandUse& use : {step.left, step.right}) {
      EXPECT_TRUE(use.timed) << pass_name(pass);
      EXPECT_EQ(use.writes, use.reads) << pass_name(pass);
      EXPECT_FALSE(use.once_per_microbatches) << pass_name(pass) << ": cast every microbatch";
    }
  }
}

// Its casts of X, dY and W's rowwise copy are FP8Rowwise's, kernel and shapes alike: only the
// weight's tensorwise copy (alone, or beside the rowwise one) is listed under its name.
TEST_F(Fp8RowwiseBf16Wgrad, ListsOnlyTheQuantizationsFp8RowwiseDoesNotHave) {
  for (const TensorRole role :
       {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kGradient}) {
    for (const OperandCopies copies :
         {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
      const bool own = role == TensorRole::kWeight && copies != OperandCopies::kRowwise;
      EXPECT_EQ(recipe(kName).lists_quantization(role, copies), own)
          << role_token(role) << " " << static_cast<int>(copies);
      EXPECT_TRUE(recipe("FP8Rowwise").lists_quantization(role, copies));
      EXPECT_FALSE(recipe("BF16").lists_quantization(role, copies));
    }
  }
}

TEST_F(Fp8RowwiseBf16Wgrad, RunsWhereFp8RowwiseRuns) {
  for (const auto& [major, minor] : {std::pair{8, 9}, {9, 0}, {10, 0}, {12, 0}}) {
    DeviceInfo device;
    device.cc_major = major;
    device.cc_minor = minor;
    const std::string reason = recipe(kName).unsupported_reason(device);
    const std::string rowwise = recipe("FP8Rowwise").unsupported_reason(device);
    EXPECT_EQ(reason.empty(), rowwise.empty()) << device.compute_capability();
    if (!reason.empty()) {
      EXPECT_NE(reason.find(kName), std::string::npos) << reason;
      EXPECT_NE(reason.find(rowwise), std::string::npos) << reason;
    }
  }
}

// On a GPU: a stacked weight of 3 experts [3 * 96, 160], rows and columns of other magnitudes,
// quantized into both copies as a grouped Fprop step does. Each expert's Dgrad copy [160, 96]
// holds one scale, 2^floor(log2(448 / amax of the expert)), in all 160 slots, and its data is
// the tensorwise cast; its Fprop copy is FP8Rowwise's, byte for byte and scale for scale.
TEST_F(Fp8RowwiseBf16Wgrad, TheWeightsDgradCopyHasOneScaleAndItsFpropCopyOneARow) {
  GEMMSCOPE_REQUIRE_GPU();
  constexpr int64_t kOut = 96;
  constexpr int64_t kIn = 160;
  constexpr int64_t kExperts = 3;
  const std::vector<__nv_bfloat16> host = testing::random_bf16(kExperts * kOut, kIn, 4321);
  const auto weights = testing::upload(host);
  const OperandSource source{TensorRole::kWeight,  weights.get(),
                             kExperts * kOut,      kIn,
                             OperandCopies::kBoth, std::vector<int64_t>(kExperts, kOut)};
  const std::unique_ptr<OperandQuantizer> ours = recipe(kName).make_quantizer(source, nullptr);
  const std::unique_ptr<OperandQuantizer> rowwise =
      recipe("FP8Rowwise").make_quantizer(source, nullptr);
  ours->quantize(nullptr);
  rowwise->quantize(nullptr);
  for (int64_t g = 0; g < kExperts; ++g) {
    SCOPED_TRACE("expert " + std::to_string(g));
    const __nv_bfloat16* expert = host.data() + g * kOut * kIn;
    const float scale = scale_from_amax(reference_amax(expert, kOut * kIn), kE4M3MaxFinite,
                                        /*power_of_2=*/true);
    std::vector<uint8_t> expected(kOut * kIn);
    reference_cast_fp8(expert, kOut, kIn, ElementFormat::kE4M3, scale, nullptr, expected.data());

    const QuantizedTensor dgrad = ours->copy(/*columnwise=*/true, g);
    ASSERT_EQ(dgrad.rows, kIn);
    ASSERT_EQ(dgrad.cols, kOut);
    ASSERT_EQ(dgrad.scale_layout, ScaleLayout::kOuterVec);
    EXPECT_EQ(testing::mismatches(testing::download(static_cast<const float*>(dgrad.scale), kIn),
                                  std::vector<float>(kIn, scale_inverse(scale))),
              "")
        << "Dgrad's weight scales";
    EXPECT_EQ(testing::mismatches(
                  testing::download(static_cast<const uint8_t*>(dgrad.data), kOut * kIn), expected),
              "")
        << "Dgrad's weight data";

    const QuantizedTensor fprop = ours->copy(false, g);
    const QuantizedTensor fp8_rowwise = rowwise->copy(false, g);
    const std::vector<float> row_scales =
        testing::download(static_cast<const float*>(fprop.scale), kOut);
    EXPECT_EQ(
        testing::mismatches(row_scales,
                            testing::download(static_cast<const float*>(fp8_rowwise.scale), kOut)),
        "")
        << "Fprop's weight scales";
    EXPECT_NE(*std::min_element(row_scales.begin(), row_scales.end()),
              *std::max_element(row_scales.begin(), row_scales.end()))
        << "the rows' magnitudes differ, so must their scales";
    EXPECT_EQ(testing::mismatches(
                  testing::download(static_cast<const uint8_t*>(fprop.data), kOut * kIn),
                  testing::download(static_cast<const uint8_t*>(fp8_rowwise.data), kOut * kIn)),
              "")
        << "Fprop's weight data";
  }
}

// On a GPU: Wgrad's cases, in every mode, are BF16's GEMM on the BF16 tensors (no recipe_err:
// they read the original inputs), launching what BF16's Wgrad case launches.
TEST_F(Fp8RowwiseBf16Wgrad, EveryWgradCaseIsTheBf16Gemm) {
  GEMMSCOPE_REQUIRE_GPU();
  const CublasLtContext cublas;
  const DeviceInfo device = query_device();
  if (!recipe("BF16").unsupported_reason(device).empty())
    GTEST_SKIP() << recipe("BF16").unsupported_reason(device);
  const RecipeContext context{device, cublas, AlgorithmChoice::kHeuristic, nullptr};
  const std::unique_ptr<GemmCase> bf16 =
      recipe("BF16").prepare({testing::small_layer_gemm(Pass::kWgrad), Mode::kNative}, context);
  for (const Mode mode : recipe(kName).modes()) {
    SCOPED_TRACE(mode_name(mode));
    const std::unique_ptr<GemmCase> wgrad =
        recipe(kName).prepare({testing::small_layer_gemm(Pass::kWgrad), mode}, context);
    for (const GemmProblem& problem : wgrad->gemm_problems()) {
      EXPECT_EQ(problem.left.tensor.format, ElementFormat::kBF16);
      EXPECT_EQ(problem.right.tensor.format, ElementFormat::kBF16);
    }
    EXPECT_EQ(wgrad->launches(), bf16->launches());
    const Verification v = verify_case(*wgrad, nullptr);
    EXPECT_TRUE(v.passed()) << v.failure_message();
    EXPECT_FALSE(v.recipe_err.has_value());
  }
}

}  // namespace
}  // namespace gemmscope
