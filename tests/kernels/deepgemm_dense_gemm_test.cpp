// DeepGEMM's dense FP8Block GEMM (kernels/deepgemm/dense_gemm.h) against the reference GEMM of
// its dequantized operands, every configuration, on the shapes CUTLASS's are tested on
// (tests/kernels/fp8_block_gemm_test_support.h: padded scale layouts, partial tiles, 1x16x8),
// outputs poisoned and guarded, each run twice; then what it refuses, which needs no GPU.

#include "kernels/deepgemm/dense_gemm.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "quant/base/unsupported.h"
#include "tests/kernels/cutlass_test_support.h"
#include "tests/kernels/deepgemm_test_support.h"
#include "tests/kernels/fp8_block_gemm_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::DenseCase;
using testing::dims;
using testing::fake_problem;
using testing::GemmShape;
using testing::kShapes;

constexpr size_t kConfigurations = 4;  // kernels/deepgemm/dense_gemm.cu's list
constexpr int kCompiledSmCount = 132;
constexpr const char* kLabel = "DeepGEMM sm90 FP8 1x128 x 128x128 block scales (";

// Why the kernels cannot run here, or "" when they can.
std::string deepgemm_unavailable_reason() {
  if (!GEMMSCOPE_WITH_DEEPGEMM)
    return "built without DeepGEMM (cmake/deepgemm.cmake)";
  const std::string reason = testing::cutlass_unavailable_reason();
  if (!reason.empty())
    return reason;
  int device = 0, sm_count = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  if (sm_count != kCompiledSmCount)
    return "the kernels are compiled for 132 SMs; this GPU has " + std::to_string(sm_count);
  return "";
}

#define GEMMSCOPE_REQUIRE_DEEPGEMM_ON_SM90()                   \
  do {                                                         \
    const std::string reason_ = deepgemm_unavailable_reason(); \
    if (!reason_.empty())                                      \
      GTEST_SKIP() << reason_;                                 \
  } while (0)

template <typename Exception>
std::string refusal(const GemmProblem& problem) {
  return testing::thrown_message<Exception>([&] { make_deepgemm_dense_gemms(problem, nullptr); });
}

TEST(DeepGemmDenseGemm, Fprop1x128By128x128MatchesReferenceInEveryConfiguration) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_ON_SM90();
  for (const GemmShape& shape : kShapes) {
    const std::vector<std::string> algorithms = testing::expect_every_configuration_matches(
        make_deepgemm_dense_gemms, shape, ScaleLayout::kBlock128x128, kLabel);
    EXPECT_EQ(algorithms.size(), kConfigurations) << dims(shape);
  }
}

// Autocast quantizes again before every GEMM, into the same buffers, with new scales (here the
// left ones 1024 times larger); k = 2304 also makes run() copy the weight scales out of our
// padded rows (18 blocks a row, padded to 20): both must be read when it runs.
TEST(DeepGemmDenseGemm, ReadsTheScalesWhenItRuns) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_ON_SM90();
  const testing::TestStream stream;
  DenseCase c({1001, 2304, 3000}, ScaleLayout::kBlock128x128, stream.stream);
  const std::vector<std::unique_ptr<GroupedGemm>> gemms =
      make_deepgemm_dense_gemms(c.problem(), stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms) {
    EXPECT_EQ(gemm->launches(), 2u) << gemm->algorithm() << ": the weight scales' copy, the GEMM";
    c.expect_match(*gemm, "first", stream.stream);
  }
  c.quantize(1024.0f, stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : gemms)
    c.expect_match(*gemm, "requantized", stream.stream);
}

// A benchmark plans every case before it times any: a plan made for a long K must still run
// after one for a short K (the kernel's shared memory attribute is one for all its plans).
TEST(DeepGemmDenseGemm, APlanRunsAfterAPlanOfAShorterK) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_ON_SM90();
  const testing::TestStream stream;
  const DenseCase long_k({300, 8192, 520}, ScaleLayout::kBlock128x128, stream.stream);
  const DenseCase short_k({300, 256, 520}, ScaleLayout::kBlock128x128, stream.stream);
  const std::vector<std::unique_ptr<GroupedGemm>> long_gemms =
      make_deepgemm_dense_gemms(long_k.problem(), stream.stream);
  const std::vector<std::unique_ptr<GroupedGemm>> short_gemms =
      make_deepgemm_dense_gemms(short_k.problem(), stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : long_gemms)
    long_k.expect_match(*gemm, "planned before the short one", stream.stream);
  for (const std::unique_ptr<GroupedGemm>& gemm : short_gemms)
    short_k.expect_match(*gemm, "planned after the long one", stream.stream);
}

// ---- Refusals: need DeepGEMM built, not a GPU ------------------------------------------------

// The checks it shares with CUTLASS's provider (tested there) speak in its name.
TEST(DeepGemmDenseGemm, RefusesWhatIsNotFp8BlockInItsOwnName) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  GemmProblem tensorwise = fake_problem({256, 512, 256}, ScaleLayout::kBlock128x128);
  tensorwise.left.tensor.scale_layout = tensorwise.right.tensor.scale_layout = ScaleLayout::kTensor;
  const std::string message = refusal<Unsupported>(tensorwise);
  EXPECT_TRUE(contains(message, "DeepGEMM dense GEMM: takes FP8Block's scales only")) << message;
}

TEST(DeepGemmDenseGemm, RefusesWgradAndKPastItsSharedMemory) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
  const std::string wgrad =
      refusal<Unsupported>(fake_problem({256, 512, 256}, ScaleLayout::kVec128));
  EXPECT_TRUE(contains(wgrad, "1x128 x 128x128 block scales (Fprop, Dgrad) only")) << wgrad;
  EXPECT_TRUE(contains(wgrad, "writes FP32")) << wgrad;
  const std::string long_k =
      refusal<Unsupported>(fake_problem({256, 65536 + 128, 256}, ScaleLayout::kBlock128x128));
  EXPECT_TRUE(contains(long_k, "DeepGEMM dense GEMM: K = 65664 past 65536")) << long_k;
}

TEST(DeepGemmDenseGemm, WithoutDeepGemmSaysHowToGetIt) {
  if (GEMMSCOPE_WITH_DEEPGEMM)
    GTEST_SKIP() << "this build has DeepGEMM";
  const std::string message =
      refusal<Unsupported>(fake_problem({256, 512, 256}, ScaleLayout::kBlock128x128));
  EXPECT_TRUE(contains(message, "built without DeepGEMM")) << message;
  EXPECT_TRUE(contains(message, "github.com/deepseek-ai/DeepGEMM")) << message;
  EXPECT_TRUE(contains(message, "-DGEMMSCOPE_DEEPGEMM_DIR=")) << message;
}

}  // namespace
}  // namespace gemmscope
