#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/timing/kernel_timer.h"

namespace gemmscope {
namespace {

using Iteration = std::vector<KernelActivity>;

TEST(SummarizeKernels, MeanOfTheSumsMedianOfEachActivity) {
  const std::vector<Iteration> iterations = {
      {{"gemm", 0.010}, {"amax", 0.004}},                     // sum 0.014
      {{"gemm", 0.012}, {"amax", 0.005}},                     // 0.017
      {{"gemm", 0.011}, {"amax", 0.003}, {"memset", 0.001}},  // 0.015, 3 activities
      {},                                                     // ignored
      {{"gemm", 0.015}, {"amax", 0.006}},                     // 0.021
  };
  const KernelSummary summary = summarize_kernels(iterations);
  EXPECT_EQ(summary.iterations, 4);
  // Sums 0.014, 0.017, 0.015, 0.021: their mean, as the event time's (sample_statistics.h).
  EXPECT_NEAR(summary.mean_ms, 0.01675, 1e-15);
  // Counts 2, 2, 3, 2: median 2.
  EXPECT_EQ(summary.per_iteration, 2);
  // From the three iterations with 2 activities: gemm {10, 12, 15} us, amax {4, 5, 6} us.
  ASSERT_EQ(summary.typical.size(), 2u);
  EXPECT_EQ(summary.typical[0].name, "gemm");
  EXPECT_DOUBLE_EQ(summary.typical[0].ms, 0.012);
  EXPECT_EQ(summary.typical[1].name, "amax");
  EXPECT_DOUBLE_EQ(summary.typical[1].ms, 0.005);
  EXPECT_EQ(kernel_list_text(summary), "gemm 12.0 us, amax 5.0 us");
}

TEST(SummarizeKernels, TypicalListComesFromTheMostCommonCount) {
  // Counts 3, 3, 1: mostly 3. The sums include the one-activity iteration.
  const std::vector<Iteration> iterations = {
      {{"cast", 0.002}, {"memset", 0.0005}, {"gemm", 0.030}},  // 0.0325
      {{"cast", 0.004}, {"memset", 0.0007}, {"gemm", 0.034}},  // 0.0387
      {{"gemm", 0.031}},                                       // 0.031
  };
  const KernelSummary summary = summarize_kernels(iterations);
  EXPECT_EQ(summary.iterations, 3);
  EXPECT_NEAR(summary.mean_ms, (0.0325 + 0.0387 + 0.031) / 3, 1e-15);
  EXPECT_EQ(summary.per_iteration, 3);
  ASSERT_EQ(summary.typical.size(), 3u);
  EXPECT_EQ(summary.typical[0].name, "cast");
  EXPECT_DOUBLE_EQ(summary.typical[0].ms, 0.003);
  EXPECT_EQ(summary.typical[1].name, "memset");
  EXPECT_DOUBLE_EQ(summary.typical[1].ms, 0.0006);
  EXPECT_EQ(summary.typical[2].name, "gemm");
  EXPECT_DOUBLE_EQ(summary.typical[2].ms, 0.032);
  EXPECT_EQ(kernel_list_text(summary), "cast 3.0 us, memset 0.6 us, gemm 32.0 us");
}

TEST(SummarizeKernels, OverlappingActivitiesCountOnce) {
  // Dependent launches: the amax pass starts 1 us before the zeroing ends, the cast 3 us before
  // the amax pass ends. The events around the iteration hold 3 + 39 + 47 = 89 us, not 93.
  const std::vector<Iteration> iterations = {
      {{"zero", 0.003}, {"amax", 0.040, 0.001}, {"cast", 0.050, 0.003}},
  };
  const KernelSummary summary = summarize_kernels(iterations);
  EXPECT_NEAR(summary.mean_ms, 0.089, 1e-15);
  // Each kernel's own duration is still its whole run.
  ASSERT_EQ(summary.typical.size(), 3u);
  EXPECT_DOUBLE_EQ(summary.typical[1].ms, 0.040);
  EXPECT_DOUBLE_EQ(summary.typical[1].overlap_ms, 0.001);
  EXPECT_DOUBLE_EQ(summary.typical[2].ms, 0.050);
  EXPECT_DOUBLE_EQ(summary.typical[2].overlap_ms, 0.003);
}

TEST(OverlapTracker, CountsOnlyTimeAnEarlierActivityCovers) {
  OverlapTracker overlaps;
  EXPECT_EQ(overlaps.take(1000, 4000), 0u);      // the first: nothing before it
  EXPECT_EQ(overlaps.take(3000, 9000), 1000u);   // a dependent launch, 1 us before the end
  EXPECT_EQ(overlaps.take(5000, 7000), 2000u);   // wholly inside the one before
  EXPECT_EQ(overlaps.take(8000, 12000), 1000u);  // against the latest end, 9000, not 7000
  EXPECT_EQ(overlaps.take(12000, 13000), 0u);    // starts as the one before ends
  EXPECT_EQ(overlaps.take(20000, 21000), 0u);    // after a gap
}

TEST(SummarizeKernels, NoActivitiesGiveAnEmptySummary) {
  for (const std::vector<Iteration>& iterations :
       {std::vector<Iteration>{}, std::vector<Iteration>{{}, {}, {}}}) {
    const KernelSummary summary = summarize_kernels(iterations);
    EXPECT_EQ(summary.iterations, 0);
    EXPECT_EQ(summary.mean_ms, 0);
    EXPECT_EQ(summary.per_iteration, 0);
    EXPECT_TRUE(summary.typical.empty());
    EXPECT_EQ(kernel_list_text(summary), "");
  }
}

TEST(KernelListText, Format) {
  KernelSummary summary;
  summary.typical = {{"name", 0.0123}, {"name2", 0.004}};
  EXPECT_EQ(kernel_list_text(summary), "name 12.3 us, name2 4.0 us");
  summary.typical = {{"only", 1.5}};
  EXPECT_EQ(kernel_list_text(summary), "only 1500.0 us");
}

TEST(SummarizeKernels, ATieBetweenCountsTakesTheLargerOneThatIterationsHave) {
  // Counts 2, 2, 4, 4: a median would say 3, which no iteration launched.
  const std::vector<Iteration> iterations = {
      {{"gemm", 0.010}, {"memset", 0.001}},
      {{"gemm", 0.012}, {"memset", 0.001}},
      {{"amax", 0.002}, {"cast", 0.003}, {"gemm", 0.010}, {"memset", 0.001}},
      {{"amax", 0.004}, {"cast", 0.003}, {"gemm", 0.012}, {"memset", 0.001}},
  };
  const KernelSummary summary = summarize_kernels(iterations);
  EXPECT_EQ(summary.per_iteration, 4);
  ASSERT_EQ(summary.typical.size(), 4u);
  EXPECT_EQ(summary.typical[0].name, "amax");
  EXPECT_DOUBLE_EQ(summary.typical[0].ms, 0.003);
}

// --list_kernels names: mangled names from g++ for the shapes our kernels have (a template in an
// anonymous namespace; a parameter list holding parentheses of its own).
TEST(ReadableKernelName, DropsTheParameterListVoidAndAnonymousNamespaces) {
  EXPECT_EQ(readable_kernel_name("_ZN9gemmscope12_GLOBAL__N_111amax_kernelILi4EEEvPKfPfi"),
            "gemmscope::amax_kernel<4>");
  EXPECT_EQ(readable_kernel_name("_ZN9gemmscope6detail9tile_castIfEEvPT_PFiiE"),
            "gemmscope::detail::tile_cast<float>");
}

TEST(ReadableKernelName, LeavesUnmangledNamesAsTheyAre) {
  EXPECT_EQ(readable_kernel_name("nvjet_sm90_qrtst_128x128_128x6_1x2_h_bz_coopA_algo2_TNT"),
            "nvjet_sm90_qrtst_128x128_128x6_1x2_h_bz_coopA_algo2_TNT");
  EXPECT_EQ(readable_kernel_name(nullptr), "?");
}

}  // namespace
}  // namespace gemmscope
