// The accounting of a case's time: which tensors each pass's timed work quantizes, into which
// copies, per mode (bench/pass_quantization.h). Host only.

#include "bench/pass_quantization.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gemmscope {
namespace {

constexpr TensorRole kX = TensorRole::kActivation;
constexpr TensorRole kW = TensorRole::kWeight;
constexpr TensorRole kDy = TensorRole::kGradient;
constexpr OperandCopies kRow = OperandCopies::kRowwise;
constexpr OperandCopies kColumn = OperandCopies::kColumnwise;
constexpr OperandCopies kBoth = OperandCopies::kBoth;

// One operand as the test states it: role, the copy the GEMM reads, the copies written, timed,
// once per microbatches.
struct Expected {
  TensorRole role;
  OperandCopies reads;
  OperandCopies writes;
  bool timed;
  bool once_per_microbatches;
};

void expect_use(const OperandUse& use, const Expected& e, const char* what) {
  EXPECT_EQ(use.role, e.role) << what;
  EXPECT_EQ(use.reads, e.reads) << what;
  EXPECT_EQ(use.writes, e.writes) << what;
  EXPECT_EQ(use.timed, e.timed) << what;
  EXPECT_EQ(use.once_per_microbatches, e.once_per_microbatches) << what;
}

void expect_pass(Pass pass, Mode mode, const Expected& left, const Expected& right,
                 const QuantizedPasses& quantized = {},
                 StepCasts step_casts = StepCasts::kSavedCopies) {
  const PassOperands operands = pass_operands(pass, mode, quantized, step_casts);
  const std::string what = std::string(pass_name(pass)) + " " + mode_name(mode);
  expect_use(operands.left, left, (what + " left").c_str());
  expect_use(operands.right, right, (what + " right").c_str());
}

// Every pass reads the same copies whatever the mode: TN on Hopper.
TEST(PassQuantization, TheGemmReadsTheSameCopiesInEveryMode) {
  for (const Mode mode : {Mode::kStep, Mode::kAutocast, Mode::kPrequant}) {
    const PassOperands fprop = pass_operands(Pass::kFprop, mode);
    const PassOperands dgrad = pass_operands(Pass::kDgrad, mode);
    const PassOperands wgrad = pass_operands(Pass::kWgrad, mode);
    EXPECT_EQ(std::vector<TensorRole>({fprop.left.role, fprop.right.role, dgrad.left.role,
                                       dgrad.right.role, wgrad.left.role, wgrad.right.role}),
              std::vector<TensorRole>({kX, kW, kDy, kW, kDy, kX}));
    EXPECT_EQ(std::vector<OperandCopies>({fprop.left.reads, fprop.right.reads, dgrad.left.reads,
                                          dgrad.right.reads, wgrad.left.reads, wgrad.right.reads}),
              std::vector<OperandCopies>({kRow, kRow, kRow, kColumn, kColumn, kColumn}));
  }
}

// A trainer's step: X and W into both copies at Fprop (W once per microbatches), dY into both
// at Dgrad, nothing at Wgrad.
TEST(PassQuantization, StepQuantizesEachTensorOnceWhereTheStepFirstReadsIt) {
  expect_pass(Pass::kFprop, Mode::kStep, {kX, kRow, kBoth, true, false},
              {kW, kRow, kBoth, true, true});
  expect_pass(Pass::kDgrad, Mode::kStep, {kDy, kRow, kBoth, true, false},
              {kW, kColumn, kColumn, false, false});
  expect_pass(Pass::kWgrad, Mode::kStep, {kDy, kColumn, kColumn, false, false},
              {kX, kColumn, kColumn, false, false});
}

// TransformerEngine's benchmark tool: both operands, into the copy read, every call.
TEST(PassQuantization, AutocastQuantizesBothOperandsOfEveryGemmIntoTheCopyItReads) {
  expect_pass(Pass::kFprop, Mode::kAutocast, {kX, kRow, kRow, true, false},
              {kW, kRow, kRow, true, false});
  expect_pass(Pass::kDgrad, Mode::kAutocast, {kDy, kRow, kRow, true, false},
              {kW, kColumn, kColumn, true, false});
  expect_pass(Pass::kWgrad, Mode::kAutocast, {kDy, kColumn, kColumn, true, false},
              {kX, kColumn, kColumn, true, false});
}

TEST(PassQuantization, PrequantTimesNoQuantization) {
  for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
    const PassOperands operands = pass_operands(pass, Mode::kPrequant);
    for (const OperandUse& use : {operands.left, operands.right}) {
      EXPECT_FALSE(use.timed) << pass_name(pass);
      EXPECT_EQ(use.writes, use.reads) << pass_name(pass);
    }
  }
}

// Per op: a step's timed work holds 3 tensor quantizations (X, W, dY, each into both copies),
// autocast's 6 (each into one copy); the weight's only in a step is spread over microbatches.
TEST(PassQuantization, AStepQuantizesThreeTensorsAnOpAndAutocastSix) {
  for (const Mode mode : {Mode::kStep, Mode::kAutocast}) {
    int timed = 0;
    int weights_per_microbatches = 0;
    for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
      const PassOperands operands = pass_operands(pass, mode);
      for (const OperandUse& use : {operands.left, operands.right}) {
        timed += use.timed ? 1 : 0;
        weights_per_microbatches += use.once_per_microbatches ? 1 : 0;
      }
    }
    EXPECT_EQ(timed, mode == Mode::kStep ? 3 : 6) << mode_name(mode);
    EXPECT_EQ(weights_per_microbatches, mode == Mode::kStep ? 1 : 0) << mode_name(mode);
  }
}

TEST(PassQuantization, NativeModeHasNothingToQuantize) {
  EXPECT_THROW(pass_operands(Pass::kFprop, Mode::kNative), std::invalid_argument);
}

// Every pass quantized: each tensor is read in both copies, by two passes.
TEST(PassQuantization, EveryQuantizedPassReadsBothCopiesOfEachTensor) {
  for (const TensorRole role : {kX, kW, kDy})
    EXPECT_EQ(copies_read(role, {}), kBoth);
  for (const TensorRole role : {kX, kW, kDy})
    EXPECT_EQ(copies_read(role, QuantizedPasses::none()), std::nullopt);
}

// Wgrad kept in BF16 (torchao's rowwise_with_gw_hp): X and dY are read quantized only rowwise,
// W in both copies.
constexpr QuantizedPasses kBf16Wgrad{true, true, false};

TEST(PassQuantization, ABf16WgradLeavesXAndDyOneCopyEach) {
  EXPECT_EQ(copies_read(kX, kBf16Wgrad), kRow);
  EXPECT_EQ(copies_read(kW, kBf16Wgrad), kBoth);
  EXPECT_EQ(copies_read(kDy, kBf16Wgrad), kRow);
  for (const Mode mode : {Mode::kStep, Mode::kAutocast, Mode::kPrequant})
    EXPECT_THROW(pass_operands(Pass::kWgrad, mode, kBf16Wgrad), std::invalid_argument);
}

// A step makes no copy for the BF16 Wgrad: X and dY rowwise only, W still into both (Dgrad's).
TEST(PassQuantization, AStepWithABf16WgradQuantizesOnlyTheCopiesFpropAndDgradRead) {
  expect_pass(Pass::kFprop, Mode::kStep, {kX, kRow, kRow, true, false},
              {kW, kRow, kBoth, true, true}, kBf16Wgrad);
  expect_pass(Pass::kDgrad, Mode::kStep, {kDy, kRow, kRow, true, false},
              {kW, kColumn, kColumn, false, false}, kBf16Wgrad);
  expect_pass(Pass::kFprop, Mode::kAutocast, {kX, kRow, kRow, true, false},
              {kW, kRow, kRow, true, false}, kBf16Wgrad);
  expect_pass(Pass::kDgrad, Mode::kAutocast, {kDy, kRow, kRow, true, false},
              {kW, kColumn, kColumn, true, false}, kBf16Wgrad);
  expect_pass(Pass::kDgrad, Mode::kPrequant, {kDy, kRow, kRow, false, false},
              {kW, kColumn, kColumn, false, false}, kBf16Wgrad);
}

// A trainer that casts at each GEMM (torchao's rowwise Float8Linear) pays in a step what
// autocast times: each GEMM's two operands into the copy it reads, every microbatch; prequant is
// untouched.
TEST(PassQuantization, AStepThatCastsAtEachGemmQuantizesAsAutocast) {
  for (const QuantizedPasses& quantized : {QuantizedPasses{}, kBf16Wgrad}) {
    for (const Pass pass : {Pass::kFprop, Pass::kDgrad, Pass::kWgrad}) {
      if (!quantized.has(pass))
        continue;
      const PassOperands step = pass_operands(pass, Mode::kStep, quantized, StepCasts::kAtEachGemm);
      const PassOperands autocast = pass_operands(pass, Mode::kAutocast, quantized);
      for (const auto& [a, b] :
           {std::pair{step.left, autocast.left}, std::pair{step.right, autocast.right}}) {
        EXPECT_EQ(a.reads, b.reads) << pass_name(pass);
        EXPECT_EQ(a.writes, b.writes) << pass_name(pass);
        EXPECT_EQ(a.timed, b.timed) << pass_name(pass);
        EXPECT_EQ(a.once_per_microbatches, b.once_per_microbatches) << pass_name(pass);
      }
      const PassOperands prequant =
          pass_operands(pass, Mode::kPrequant, quantized, StepCasts::kAtEachGemm);
      EXPECT_FALSE(prequant.left.timed || prequant.right.timed) << pass_name(pass);
    }
  }
}

}  // namespace
}  // namespace gemmscope
