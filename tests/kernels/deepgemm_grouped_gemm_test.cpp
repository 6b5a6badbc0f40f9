// What DeepGEMM's m-grouped FP8Block and BF16 GEMMs (kernels/deepgemm/grouped_gemm.h,
// grouped_bf16_gemm.h) refuse, and why; these need DeepGEMM built, not a GPU. Their products are
// checked against the reference, expert by expert, every configuration, in every mode and on
// ragged rows, by the grouped pass test
// (tests/bench/grouped_pass_test.cpp), which runs every grouped provider through gemm_bench's
// recipes and quantizers, the stacked 1x128 scales included.

#include "kernels/deepgemm/grouped_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "quant/base/unsupported.h"
#include "tests/gpu_test_support.h"
#include "tests/kernels/cutlass_test_support.h"
#include "tests/kernels/deepgemm_test_support.h"
#include "tests/kernels/fp8_block_gemm_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::fake;

constexpr int64_t kK = 512, kN = 256;

// Experts of `rows` laid out as one m-grouped operand (never dereferenced): rows, outputs,
// weights and both scales one after another, the left scales stacked.
std::vector<GemmProblem> contiguous_groups(const std::vector<int64_t>& rows, ScaleLayout right) {
  int64_t total = 0;
  for (const int64_t r : rows)
    total += r;
  std::vector<GemmProblem> groups;
  int64_t first = 0;
  for (size_t g = 0; g < rows.size(); ++g) {
    GemmProblem p = testing::fake_problem({rows[g], kK, kN}, right);
    p.left.tensor.data = fake<uint8_t>(0x100000) + first * kK;
    p.right.tensor.data = fake<uint8_t>(0x200000) + static_cast<int64_t>(g) * kN * kK;
    p.output = fake<__nv_bfloat16>(0x300000) + first * kN;
    p.left.tensor.scale = fake<float>(0x400000) + first * (kK / 128);
    p.left.tensor.stacked_scale = fake<float>(0x500000) + first;
    p.left.tensor.stacked_scale_stride = total;
    p.right.tensor.scale = fake<float>(0x600000) + static_cast<int64_t>(g) * (kN / 128) * 4;
    groups.push_back(p);
    first += rows[g];
  }
  return groups;
}

std::string refusal(const std::vector<GemmProblem>& groups) {
  return testing::thrown_message<Unsupported>(
      [&] { make_deepgemm_grouped_gemms(groups, nullptr); });
}

TEST(DeepGemmGroupedGemm, RefusesExpertsWhoseRowsAreNotWholeTiles) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  const std::string message = refusal(contiguous_groups({256, 48}, ScaleLayout::kBlock128x128));
  EXPECT_TRUE(contains(message, "DeepGEMM m-grouped GEMM: group 1 (48x512x256)")) << message;
  EXPECT_TRUE(contains(message, "a multiple of 128")) << message;
  EXPECT_TRUE(contains(message, "--grouped=deepgemm pads them so")) << message;
}

TEST(DeepGemmGroupedGemm, RefusesScalesThatAreNotStacked) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  std::vector<GemmProblem> groups = contiguous_groups({128, 256}, ScaleLayout::kBlock128x128);
  for (GemmProblem& g : groups)
    g.left.tensor.stacked_scale = nullptr;
  const std::string unstacked = refusal(groups);
  EXPECT_TRUE(contains(unstacked, "scales are not stacked")) << unstacked;
  groups = contiguous_groups({128, 256}, ScaleLayout::kBlock128x128);
  for (GemmProblem& g : groups)
    g.left.tensor.stacked_scale_stride = 1024;
  const std::string stride = refusal(groups);
  EXPECT_TRUE(contains(stride, "step 1024 between K blocks, not every expert's rows (384)"))
      << stride;
}

TEST(DeepGemmGroupedGemm, RefusesExpertsThatAreNotContiguous) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  std::vector<GemmProblem> groups = contiguous_groups({128, 256}, ScaleLayout::kBlock128x128);
  groups[1].right.tensor.data = fake<uint8_t>(0x280000);  // a weight elsewhere
  const std::string message = refusal(groups);
  EXPECT_TRUE(contains(message, "group 1 (256x512x256): its weight rows do not follow")) << message;
  EXPECT_TRUE(contains(message, "must each lie one after another")) << message;
}

// Experts laid out as the FP8 grouped quantizer lays them out pass every layout check: the only
// refusal left is the GPU's (not sm_90 with 132 SMs); on such a GPU, every configuration is
// planned (nothing is launched, so the stand-in pointers are never read): the build's four, and
// with the run-time compile on, each of them compiled for the groups' N and K too, first.
TEST(DeepGemmGroupedGemm, TakesExpertsLaidOutAsOneMGroupedOperand) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  GEMMSCOPE_REQUIRE_GPU();
  const std::vector<GemmProblem> groups =
      contiguous_groups({128, 384, 256}, ScaleLayout::kBlock128x128);
  try {
    {
      const testing::ScopedEnvironment off("GEMMSCOPE_JIT", "off");
      const auto built = make_deepgemm_grouped_gemms(groups, nullptr);
      ASSERT_EQ(built.size(), 4u);
      for (const auto& gemm : built) {
        EXPECT_TRUE(contains(gemm->algorithm(), "not compiled for N = 256, K = 512: "))
            << gemm->algorithm();
        EXPECT_TRUE(contains(gemm->algorithm(), "GEMMSCOPE_JIT=off")) << gemm->algorithm();
      }
    }
    const testing::ScopedJitCache jit("gemmscope_grouped_jit_test");
    const auto both = make_deepgemm_grouped_gemms(groups, nullptr);
    ASSERT_EQ(both.size(), 8u) << both.back()->algorithm();
    for (size_t i = 0; i < both.size(); ++i) {
      EXPECT_EQ(contains(both[i]->algorithm(), kDeepGemmCompiledLabel), i < 4)
          << both[i]->algorithm();
    }
  } catch (const Unsupported& e) {
    const std::string message = e.what();
    EXPECT_TRUE(contains(message, "compute capability") || contains(message, "SMs"))
        << "refused for something other than the GPU: " << message;
  }
}

TEST(DeepGemmGroupedGemm, RefusesWgradAndWhatIsNotFp8Block) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  const std::string wgrad = refusal(contiguous_groups({128, 256}, ScaleLayout::kVec128));
  EXPECT_TRUE(contains(wgrad, "(Fprop, Dgrad) only")) << wgrad;
  EXPECT_TRUE(contains(wgrad, "writes FP32")) << wgrad;
  std::vector<GemmProblem> tensorwise = contiguous_groups({128}, ScaleLayout::kBlock128x128);
  tensorwise[0].left.tensor.scale_layout = tensorwise[0].right.tensor.scale_layout =
      ScaleLayout::kTensor;
  const std::string message = refusal(tensorwise);
  EXPECT_TRUE(contains(message, "DeepGEMM m-grouped GEMM: takes FP8Block's scales only"))
      << message;
}

// BF16 experts as gemm_bench lays them out (never dereferenced): rows and outputs one after
// another, each expert's weight [N, K] (Fprop) or, `weights_k_major` false, [K, N] (Dgrad).
QuantizedTensor bf16(const void* data, int64_t rows, int64_t cols) {
  QuantizedTensor t;
  t.data = data;
  t.rows = rows;
  t.cols = cols;
  return t;
}

std::vector<GemmProblem> bf16_groups(const std::vector<int64_t>& rows, int64_t k, int64_t n,
                                     bool weights_k_major) {
  std::vector<GemmProblem> groups;
  int64_t first = 0;
  for (size_t g = 0; g < rows.size(); ++g) {
    GemmProblem p;
    p.left.tensor = bf16(fake<__nv_bfloat16>(0x100000) + first * k, rows[g], k);
    p.left.k_major = true;
    const __nv_bfloat16* weight = fake<__nv_bfloat16>(0x200000) + static_cast<int64_t>(g) * n * k;
    p.right.tensor = weights_k_major ? bf16(weight, n, k) : bf16(weight, k, n);
    p.right.k_major = weights_k_major;
    p.output = fake<__nv_bfloat16>(0x300000) + first * n;
    groups.push_back(p);
    first += rows[g];
  }
  return groups;
}

TEST(DeepGemmGroupedGemm, Bf16RefusesWhatItsKernelCannotRead) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  const std::string tiles = refusal(bf16_groups({256, 100}, 512, 256, true));
  EXPECT_TRUE(contains(tiles, "DeepGEMM m-grouped BF16 GEMM: group 1 (100x512x256)")) << tiles;
  EXPECT_TRUE(contains(tiles, "a multiple of 128")) << tiles;
  const std::string k_tile = refusal(bf16_groups({128, 256}, 224, 256, false));
  EXPECT_TRUE(contains(k_tile, "K = 224 with the weights stored [K, N] (Dgrad)")) << k_tile;
  EXPECT_TRUE(contains(k_tile, "the next expert's weight rows")) << k_tile;
  const std::string narrow = refusal(bf16_groups({128}, 512, 100, true));
  EXPECT_TRUE(contains(narrow, "N = 100, K = 512: both must be multiples of 8")) << narrow;
  std::vector<GemmProblem> apart = bf16_groups({128, 256}, 512, 256, true);
  apart[1].output = fake<__nv_bfloat16>(0x380000);
  const std::string misplaced = refusal(apart);
  EXPECT_TRUE(contains(misplaced, "group 1 (256x512x256): its output rows do not follow"))
      << misplaced;
  std::vector<GemmProblem> weights = bf16_groups({128, 256}, 512, 256, false);
  weights[1].right.tensor.data = fake<__nv_bfloat16>(0x280000);
  const std::string weight_rows = refusal(weights);
  EXPECT_TRUE(contains(weight_rows, "group 1 (256x512x256): its weights do not follow"))
      << weight_rows;
  // Wgrad: the left operand is dY transposed, and each expert's K is its own rows.
  std::vector<GemmProblem> wgrad = bf16_groups({128, 256}, 512, 256, true);
  for (GemmProblem& g : wgrad) {
    g.left.tensor = bf16(g.left.tensor.data, g.left.tensor.cols, g.left.tensor.rows);
    g.left.k_major = false;
  }
  const std::string k_grouped = refusal(wgrad);
  EXPECT_TRUE(contains(k_grouped, "K-grouped")) << k_grouped;
  // An emulated operand's BF16 stand-in carries a per-tensor factor the kernel cannot apply.
  std::vector<GemmProblem> scaled = bf16_groups({128, 256}, 512, 256, true);
  for (GemmProblem& g : scaled)
    g.right.tensor.tensor_scale = fake<float>(0x700000);
  const std::string factor = refusal(scaled);
  EXPECT_TRUE(contains(factor, "takes unscaled BF16 operands only")) << factor;
  std::vector<GemmProblem> unaligned = bf16_groups({128}, 512, 256, true);
  unaligned[0].output = fake<__nv_bfloat16>(0x300000) + 1;
  const std::string address = refusal(unaligned);
  EXPECT_TRUE(contains(address, "16-byte aligned")) << address;
}

// Planned on the GPU its kernels are compiled for (nothing launched): one kernel a configuration,
// each compiled for the case's N and K; with the run-time compile off it is refused, saying why,
// as no BF16 kernel is built.
TEST(DeepGemmGroupedGemm, Bf16RunsOnlyCompiledForTheCase) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  GEMMSCOPE_REQUIRE_GPU();
  for (const bool weights_k_major : {true, false}) {
    const std::vector<GemmProblem> groups = bf16_groups({128, 384}, 512, 256, weights_k_major);
    std::string off;
    {
      const testing::ScopedEnvironment jit_off("GEMMSCOPE_JIT", "off");
      off = refusal(groups);
    }
    if (contains(off, "compute capability") || contains(off, "SMs"))
      GTEST_SKIP() << "not the GPU DeepGEMM's kernels are compiled for: " << off;
    EXPECT_TRUE(contains(off, "runs only compiled for each case's N and K")) << off;
    EXPECT_TRUE(contains(off, "GEMMSCOPE_JIT=off")) << off;
    const testing::ScopedJitCache jit("gemmscope_grouped_bf16_jit_test");
    const auto gemms = make_deepgemm_grouped_gemms(groups, nullptr);
    ASSERT_EQ(gemms.size(), 4u);
    for (const auto& gemm : gemms) {
      EXPECT_TRUE(contains(gemm->algorithm(), "DeepGEMM sm90 m-grouped BF16, 2 experts ("))
          << gemm->algorithm();
      EXPECT_TRUE(contains(gemm->algorithm(), weights_k_major ? "(TN, " : "(NN, "))
          << gemm->algorithm();
      EXPECT_TRUE(contains(gemm->algorithm(), kDeepGemmCompiledLabel)) << gemm->algorithm();
    }
  }
}

TEST(DeepGemmGroupedGemm, WithoutDeepGemmSaysHowToGetIt) {
  if (GEMMSCOPE_WITH_DEEPGEMM)
    GTEST_SKIP() << "this build has DeepGEMM";
  const std::string message = refusal(contiguous_groups({128}, ScaleLayout::kBlock128x128));
  EXPECT_TRUE(contains(message, "built without DeepGEMM")) << message;
  EXPECT_TRUE(contains(message, "-DGEMMSCOPE_DEEPGEMM_DIR=")) << message;
}

}  // namespace
}  // namespace gemmscope
