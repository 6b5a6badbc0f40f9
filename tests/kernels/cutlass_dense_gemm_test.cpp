// CUTLASS's dense FP8Block GEMM (kernels/cutlass/dense_gemm.h) against the reference GEMM of its
// dequantized operands, every configuration: operands from FP8Block's own quantizers on fresh
// random data whose magnitude changes from block to block (so a scale read from the wrong slot
// shows), sizes whose scale layouts carry padding (rows not a multiple of 4, ceil(K/128) not a
// multiple of 4) and partial tiles, outputs poisoned with NaN and guarded at the end, each run
// twice. The refusal and ranking tests need a build with CUTLASS but no GPU: the factory checks
// a problem before it touches one.

#include "kernels/cutlass/dense_gemm.h"

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/cutlass/detail/dense_gemm_configurations.h"
#include "kernels/device_buffer.h"
#include "kernels/reference/error.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/block.h"
#include "quant/fp8/operand.h"
#include "tests/kernels/cutlass_test_support.h"
#include "tests/kernels/fp8_block_gemm_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::DenseCase;
using testing::dims;
using testing::GemmShape;
using testing::kShapes;

// How many configurations each kind instantiates (kernels/cutlass/dense_gemm.cpp).
constexpr size_t kConfigurationsPerKind = 4;

// FP8Block's two kinds of GEMM: 1x128 activations or gradients on the left, weights (128x128)
// or another 1x128 operand (Wgrad) on the right.
struct Kind {
  const char* name;
  ScaleLayout right;
  const char* label;  // what the configurations' algorithm() says
};

const Kind k1d2d{"Fprop/Dgrad 1x128 x 128x128", ScaleLayout::kBlock128x128,
                 "CUTLASS sm90 FP8 1x128 x 128x128 block scales ("};
const Kind k1d1d{"Wgrad 1x128 x 1x128", ScaleLayout::kVec128,
                 "CUTLASS sm90 FP8 1x128 x 1x128 block scales ("};

std::vector<std::string> expect_every_configuration_matches(const GemmShape& shape,
                                                            const Kind& kind) {
  SCOPED_TRACE(kind.name);
  return testing::expect_every_configuration_matches(make_cutlass_dense_gemms, shape, kind.right,
                                                     kind.label);
}

TEST(CutlassDenseGemm, Fprop1x128By128x128MatchesReferenceInEveryConfiguration) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  for (const GemmShape& shape : kShapes) {
    const std::vector<std::string> algorithms = expect_every_configuration_matches(shape, k1d2d);
    EXPECT_EQ(algorithms.size(), kConfigurationsPerKind) << dims(shape);
  }
}

TEST(CutlassDenseGemm, Wgrad1x128By1x128MatchesReferenceInEveryConfiguration) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  for (const GemmShape& shape : kShapes) {
    const std::vector<std::string> algorithms = expect_every_configuration_matches(shape, k1d1d);
    EXPECT_EQ(algorithms.size(), kConfigurationsPerKind) << dims(shape);
  }
}

// Autocast quantizes again before every GEMM, into the same buffers, with new scales (here the
// left ones 1024 times larger): a planned GEMM must read them when it runs.
TEST(CutlassDenseGemm, ReadsTheScalesWhenItRuns) {
  GEMMSCOPE_REQUIRE_CUTLASS_ON_SM90();
  for (const Kind* kind : {&k1d2d, &k1d1d}) {
    SCOPED_TRACE(kind->name);
    const testing::TestStream stream;
    DenseCase c({1001, 2304, 3000}, kind->right, stream.stream);
    const std::vector<std::unique_ptr<GroupedGemm>> gemms =
        make_cutlass_dense_gemms(c.problem(), stream.stream);
    for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
      c.expect_match(*gemm, "first", stream.stream);
    c.quantize(1024.0f, stream.stream);
    for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
      c.expect_match(*gemm, "requantized", stream.stream);
  }
}

// ---- Refusals and the ranking: need CUTLASS, not a GPU -------------------------------------

using testing::fake;

GemmProblem fake_problem(const GemmShape& s, const Kind& kind) {
  return testing::fake_problem(s, kind.right);
}

template <typename Exception>
std::string refusal(const GemmProblem& problem) {
  return testing::thrown_message<Exception>([&] { make_cutlass_dense_gemms(problem, nullptr); });
}

TEST(CutlassDenseGemm, RefusesWhatIsNotFp8Block) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  const GemmShape shape{256, 512, 256};

  GemmProblem bf16 = fake_problem(shape, k1d2d);
  bf16.left.tensor.format = bf16.right.tensor.format = ElementFormat::kBF16;
  bf16.left.tensor.scale_layout = bf16.right.tensor.scale_layout = ScaleLayout::kNone;
  EXPECT_TRUE(contains(refusal<Unsupported>(bf16), "E4M3 x E4M3 operands only; these are BF16"));

  GemmProblem e5m2 = fake_problem(shape, k1d1d);
  e5m2.left.tensor.format = ElementFormat::kE5M2;
  EXPECT_TRUE(contains(refusal<Unsupported>(e5m2), "these are E5M2 x E4M3"));

  GemmProblem tensorwise = fake_problem(shape, k1d2d);
  tensorwise.left.tensor.scale_layout = tensorwise.right.tensor.scale_layout = ScaleLayout::kTensor;
  const std::string tensorwise_message = refusal<Unsupported>(tensorwise);
  EXPECT_TRUE(contains(tensorwise_message, "FP8Block's scales only")) << tensorwise_message;
  EXPECT_TRUE(contains(tensorwise_message, "these are Tensor x Tensor")) << tensorwise_message;

  GemmProblem weights_left = fake_problem(shape, k1d2d);
  std::swap(weights_left.left.tensor.scale_layout, weights_left.right.tensor.scale_layout);
  EXPECT_TRUE(contains(refusal<Unsupported>(weights_left), "these are Block128x128 x Vec128"));

  GemmProblem not_tn = fake_problem(shape, k1d2d);
  not_tn.right.k_major = false;
  std::swap(not_tn.right.tensor.rows, not_tn.right.tensor.cols);
  EXPECT_TRUE(contains(refusal<Unsupported>(not_tn), "both operands K-major (TN)"));

  GemmProblem two_levels = fake_problem(shape, k1d2d);
  two_levels.left.tensor.tensor_scale = fake<const float>(0x4000);
  EXPECT_TRUE(contains(refusal<Unsupported>(two_levels), "no second, per-tensor scaling level"));

  GemmProblem fast = fake_problem(shape, k1d2d);
  fast.fast_accumulation = true;
  EXPECT_TRUE(contains(refusal<Unsupported>(fast), "fast accumulation does not apply"));
}

TEST(CutlassDenseGemm, RefusesSizesAndAddressesTmaCannotTake) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  for (const Kind* kind : {&k1d2d, &k1d1d}) {
    SCOPED_TRACE(kind->name);
    const std::string bad_k = refusal<Unsupported>(fake_problem({256, 520, 256}, *kind));
    EXPECT_TRUE(contains(bad_k, "256x520x256: K must be a multiple of 16")) << bad_k;
    const std::string bad_n = refusal<Unsupported>(fake_problem({256, 512, 260}, *kind));
    EXPECT_TRUE(contains(bad_n, "256x512x260: N must be a multiple of 8")) << bad_n;
    const std::string huge = refusal<Unsupported>(
        fake_problem({int64_t{std::numeric_limits<int>::max()} + 1, 512, 256}, *kind));
    EXPECT_TRUE(contains(huge, "are 32-bit")) << huge;

    for (const char* which : {"left data", "right data", "output", "left scales"}) {
      GemmProblem problem = fake_problem({256, 512, 256}, *kind);
      const std::string what = which;
      if (what == "left data")
        problem.left.tensor.data = fake(0x1008);
      if (what == "right data")
        problem.right.tensor.data = fake(0x1001);
      if (what == "output")
        problem.output = fake<__nv_bfloat16>(0x2002);
      if (what == "left scales")
        problem.left.tensor.scale = fake(0x3004);
      EXPECT_TRUE(contains(refusal<Unsupported>(problem), "TMA needs 16-byte aligned")) << which;
    }
    GemmProblem odd_scales = fake_problem({256, 512, 256}, *kind);
    odd_scales.right.tensor.scale = fake(0x3002);
    EXPECT_TRUE(contains(refusal<Unsupported>(odd_scales), "not FP32-aligned"));
  }
}

TEST(CutlassDenseGemm, RejectsWhatIsNotOneGemm) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  GemmProblem mismatched = fake_problem({256, 512, 256}, k1d2d);
  mismatched.right.tensor.cols = 640;
  EXPECT_TRUE(contains(refusal<std::invalid_argument>(mismatched),
                       "contraction sizes differ: left 512, right 640"));
  GemmProblem no_output = fake_problem({256, 512, 256}, k1d2d);
  no_output.output = nullptr;
  EXPECT_TRUE(contains(refusal<std::invalid_argument>(no_output), "is missing"));
}

// The factory's rules and its list are in the CUTLASS objects: the tests of them below need a
// build with CUTLASS (and no GPU).
#if GEMMSCOPE_WITH_CUTLASS

std::vector<cutlass_dense::Configuration> every_configuration() {
  return {
      cutlass_dense::config_1d2d_cooperative_1x2(), cutlass_dense::config_1d2d_cooperative_2x1(),
      cutlass_dense::config_1d2d_pingpong_2x1(),    cutlass_dense::config_1d2d_stream_k_1x2(),
      cutlass_dense::config_1d1d_cooperative_1x2(), cutlass_dense::config_1d1d_cooperative_2x1(),
      cutlass_dense::config_1d1d_pingpong_2x1(),    cutlass_dense::config_1d1d_stream_k_1x2()};
}

// Sizes whose scale layouts carry padding, partial tiles or a single K block are no reason to
// refuse: every configuration of the problem's kind takes them, CUTLASS's can_implement
// included, and the factory goes on to the GPU (or fails for the lack of one).
TEST(CutlassDenseGemm, EveryConfigurationTakesSizesWithPaddedScaleLayouts) {
  for (const Kind* kind : {&k1d2d, &k1d1d}) {
    for (const GemmShape& shape : kShapes) {
      const std::string where = std::string(kind->name) + " " + dims(shape);
      cutlass_dense::Problem problem;
      problem.scaling = kind->right == ScaleLayout::kBlock128x128
                            ? cutlass_dense::BlockScaling::k1d2d
                            : cutlass_dense::BlockScaling::k1d1d;
      problem.m = static_cast<int>(shape.m);
      problem.n = static_cast<int>(shape.n);
      problem.k = static_cast<int>(shape.k);
      problem.a = problem.b = fake(0x1000);
      problem.d = fake(0x2000);
      problem.scale_a = problem.scale_b = fake<const float>(0x3000);
      size_t taken = 0;
      for (const cutlass_dense::Configuration& config : every_configuration()) {
        if (config.scaling != problem.scaling)
          continue;
        EXPECT_EQ(config.refusal(problem), "") << where;
        ++taken;
      }
      EXPECT_EQ(taken, kConfigurationsPerKind) << where;

      std::string message;
      try {
        make_cutlass_dense_gemms(fake_problem(shape, *kind), nullptr);
      } catch (const std::exception& e) {
        message = e.what();
      }
      EXPECT_FALSE(contains(message, "CUTLASS dense GEMM: " + dims(shape) + ": ") ||
                   contains(message, "no configuration for"))
          << where << ": " << message;
    }
  }
}

// The te-tutorial model's and Llama 3 70B's (tensor parallel 8) dense GEMMs as M x N, tiles of
// 128x128: the swizzle is the largest that adds no padding tile.
TEST(CutlassDenseGemm, SwizzlesAsFarAsTheTileCountsAllow) {
  const cutlass_dense::Configuration cooperative = cutlass_dense::config_1d2d_cooperative_1x2();
  const cutlass_dense::Configuration pingpong = cutlass_dense::config_1d2d_pingpong_2x1();
  // 124 x 96 tiles: 8 would pad 124 to 128.
  EXPECT_EQ(cutlass_dense::swizzle_for(cooperative, 15872, 12288), 4);
  // 248 x 96 tiles of 64x128 in clusters of 2 along M: 8 would pad 248 to 256.
  EXPECT_EQ(cutlass_dense::swizzle_for(pingpong, 15872, 12288), 4);
  EXPECT_EQ(cutlass_dense::swizzle_for(cooperative, 8192, 8192), 8);
  // 64 x 10 tiles in clusters of 2 along N: 4 pads 10 to 16, 2 pads it to 12.
  EXPECT_EQ(cutlass_dense::swizzle_for(cooperative, 8192, 1280), 1);
  // 8 x 24: 8 would pad 24 to 32 (clusters of 2 along N); 4 pads nothing.
  EXPECT_EQ(cutlass_dense::swizzle_for(cooperative, 1000, 3000), 4);
  EXPECT_EQ(cutlass_dense::swizzle_for(cooperative, 17, 328), 1);
}

TEST(CutlassDenseGemm, OrdersByModelledTime) {
  constexpr int kH100Sms = 132;
  const auto time = [](const cutlass_dense::Configuration& config, int64_t m, int64_t n) {
    return cutlass_dense::modelled_time(config, m, n, kH100Sms);
  };
  for (const auto& [scaling, cooperative, pingpong, stream_k] :
       {std::tuple{"1D2D", cutlass_dense::config_1d2d_cooperative_1x2(),
                   cutlass_dense::config_1d2d_pingpong_2x1(),
                   cutlass_dense::config_1d2d_stream_k_1x2()},
        std::tuple{"1D1D", cutlass_dense::config_1d1d_cooperative_1x2(),
                   cutlass_dense::config_1d1d_pingpong_2x1(),
                   cutlass_dense::config_1d1d_stream_k_1x2()}}) {
    SCOPED_TRACE(scaling);
    // te-tutorial's qkv Fprop: 11904 tiles, 90.2 waves. The cooperative tile leads; stream-K
    // ties with it (its allowance outweighs the last wave's 0.8 idle) and comes after it.
    EXPECT_LT(time(cooperative, 15872, 12288), time(pingpong, 15872, 12288));
    EXPECT_EQ(time(cooperative, 15872, 12288), time(stream_k, 15872, 12288));
    // 7 x 20 = 140 tiles, one wave and 8 tiles: stream-K splits the 8 over every SM.
    EXPECT_LT(time(stream_k, 896, 2560), time(cooperative, 896, 2560));
    // 2 x 5 tiles of 128x128 (12 CTAs with the clusters' padding) or 4 x 5 of 64x128 (20 CTAs):
    // one wave either way, of half the tile.
    EXPECT_LT(time(pingpong, 256, 640), time(cooperative, 256, 640));
  }
}

// Each configuration says what it is, and 1D2D's and 1D1D's lists mirror each other.
TEST(CutlassDenseGemm, InstantiatesTheDocumentedConfigurations) {
  using cutlass_dense::BlockScaling;
  using cutlass_dense::Schedule;
  using cutlass_dense::TileScheduler;
  const struct {
    cutlass_dense::Configuration config;
    BlockScaling scaling;
    Schedule schedule;
    TileScheduler scheduler;
    int tile_m, cluster_m, cluster_n;
  } expected[] = {
      {cutlass_dense::config_1d2d_cooperative_1x2(), BlockScaling::k1d2d, Schedule::kCooperative,
       TileScheduler::kPersistent, 128, 1, 2},
      {cutlass_dense::config_1d2d_cooperative_2x1(), BlockScaling::k1d2d, Schedule::kCooperative,
       TileScheduler::kPersistent, 128, 2, 1},
      {cutlass_dense::config_1d2d_pingpong_2x1(), BlockScaling::k1d2d, Schedule::kPingpong,
       TileScheduler::kPersistent, 64, 2, 1},
      {cutlass_dense::config_1d2d_stream_k_1x2(), BlockScaling::k1d2d, Schedule::kCooperative,
       TileScheduler::kStreamK, 128, 1, 2},
      {cutlass_dense::config_1d1d_cooperative_1x2(), BlockScaling::k1d1d, Schedule::kCooperative,
       TileScheduler::kPersistent, 128, 1, 2},
      {cutlass_dense::config_1d1d_cooperative_2x1(), BlockScaling::k1d1d, Schedule::kCooperative,
       TileScheduler::kPersistent, 128, 2, 1},
      {cutlass_dense::config_1d1d_pingpong_2x1(), BlockScaling::k1d1d, Schedule::kPingpong,
       TileScheduler::kPersistent, 64, 2, 1},
      {cutlass_dense::config_1d1d_stream_k_1x2(), BlockScaling::k1d1d, Schedule::kCooperative,
       TileScheduler::kStreamK, 128, 1, 2},
  };
  for (const auto& e : expected) {
    EXPECT_EQ(e.config.scaling, e.scaling);
    EXPECT_EQ(e.config.schedule, e.schedule);
    EXPECT_EQ(e.config.scheduler, e.scheduler);
    EXPECT_EQ(e.config.tile_m, e.tile_m);
    EXPECT_EQ(e.config.tile_n, 128);
    EXPECT_EQ(e.config.tile_k, 128);
    EXPECT_EQ(e.config.cluster_m, e.cluster_m);
    EXPECT_EQ(e.config.cluster_n, e.cluster_n);
  }
}

#endif  // GEMMSCOPE_WITH_CUTLASS

// Its sm_90a kernels run on compute capability 9.0 only; elsewhere it refuses, naming the GPU.
TEST(CutlassDenseGemm, RefusesGpusOtherThanSm90) {
  GEMMSCOPE_REQUIRE_CUTLASS_BUILD();
  GEMMSCOPE_REQUIRE_GPU();
  if (testing::cutlass_unavailable_reason().empty())
    GTEST_SKIP() << "this GPU is compute capability 9.0, where the kernels run";
  const std::string message = refusal<Unsupported>(fake_problem({256, 512, 256}, k1d2d));
  EXPECT_TRUE(contains(message, "runs on compute capability 9.0 only; this GPU is ")) << message;
}

TEST(CutlassDenseGemm, WithoutCutlassSaysHowToGetIt) {
  if (GEMMSCOPE_WITH_CUTLASS)
    GTEST_SKIP() << "this build has CUTLASS";
  const std::string message = refusal<Unsupported>(fake_problem({256, 512, 256}, k1d2d));
  EXPECT_TRUE(contains(message, "built without CUTLASS")) << message;
  EXPECT_TRUE(contains(message, "pip install nvidia-cutlass")) << message;
  EXPECT_TRUE(contains(message, "-DGEMMSCOPE_CUTLASS_DIR=")) << message;
}

}  // namespace
}  // namespace gemmscope
