// DeepGEMM's run-time compile (kernels/deepgemm/detail/jit_kernel.h) where it needs no GPU: a
// kernel compiles once into the cache folder and is then read from it, GEMMSCOPE_JIT=off turns it
// off, and a failed compile says why. (That a compiled kernel computes what the build's does is
// the grouped pass test's: tests/bench/grouped_pass_test.cpp runs every DeepGEMM candidate,
// compiled ones included, against the reference.) Each compile takes nvcc several seconds.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "quant/base/unsupported.h"
#include "tests/kernels/deepgemm_test_support.h"
#include "tests/quant/fp8_test_support.h"

#if GEMMSCOPE_WITH_DEEPGEMM
#include "kernels/deepgemm/detail/jit_kernel.h"
#endif

namespace gemmscope {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnvironment;

#if GEMMSCOPE_WITH_DEEPGEMM

// A cache folder of the test's own, removed after it.
class DeepGemmJit : public ::testing::Test {
 protected:
  const testing::ScopedJitCache jit_{"gemmscope_jit_test"};
  const fs::path& cache_ = jit_.folder();
};

constexpr const char* kHeader = "deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh";
// The m-grouped provider's 128x128 configuration (kernels/deepgemm/grouped_gemm.cu) for N = 256,
// K = 512, as deepgemm::jit_instantiation spells it.
constexpr const char* kInstantiation =
    "deep_gemm::sm90_fp8_gemm_1d2d_impl<cute::UMMA::Major::K, 0, 256, 512, 1, 128, 128, 128, 128, "
    "128, 128, 5, 128, 256, 2, false, 132, deep_gemm::GemmType::MGroupedContiguous, "
    "cutlass::bfloat16_t, deep_gemm::epilogue::transform::EpilogueIdentity>";

TEST_F(DeepGemmJit, CompilesOnceThenReadsTheCache) {
  const std::vector<std::string> first = deepgemm::compile_cubins(kHeader, {kInstantiation});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(fs::exists(first[0])) << first[0];
  EXPECT_EQ(fs::path(first[0]).parent_path(), cache_);
  EXPECT_GT(fs::file_size(first[0]), 0u);
  const auto written = fs::last_write_time(first[0]);
  const std::vector<std::string> again = deepgemm::compile_cubins(kHeader, {kInstantiation});
  EXPECT_EQ(again, first);
  EXPECT_EQ(fs::last_write_time(again[0]), written) << "compiled again instead of reading it";
  // Nothing but the cubin is left behind (no source, no log, no partial cubin).
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(cache_))
    files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
}

TEST_F(DeepGemmJit, OffSaysSo) {
  const ScopedEnvironment off("GEMMSCOPE_JIT", "off");
  EXPECT_FALSE(deepgemm::jit_enabled());
  const std::string message = testing::thrown_message<Unsupported>(
      [] { deepgemm::compile_cubins(kHeader, {kInstantiation}); });
  EXPECT_TRUE(testing::contains(message, "off (GEMMSCOPE_JIT=off)")) << message;
  EXPECT_FALSE(fs::exists(cache_)) << "made a cache folder while off";
}

TEST_F(DeepGemmJit, AFailedCompileSaysWhyAndKeepsNoCubin) {
  const std::string message = testing::thrown_message<Unsupported>(
      [] { deepgemm::compile_cubins(kHeader, {"deep_gemm::no_such_kernel<1>"}); });
  EXPECT_TRUE(testing::contains(message, "DeepGEMM run-time compile: nvcc failed")) << message;
  EXPECT_TRUE(testing::contains(message, "no_such_kernel")) << message;
  EXPECT_TRUE(testing::contains(message, "all of its output: ")) << message;
  for (const auto& entry : fs::directory_iterator(cache_))
    EXPECT_NE(entry.path().extension(), ".cubin") << entry.path();
}

#else

TEST(DeepGemmJit, NeedsDeepGemm) {
  GEMMSCOPE_REQUIRE_DEEPGEMM_BUILD();
}

#endif

}  // namespace
}  // namespace gemmscope
