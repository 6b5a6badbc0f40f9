// The GPC clock sampler: how samples become a clock (synthetic samples), harmless without a
// GPU, and on a GPU, with every SM busy, the clock the SMs count themselves (clock64()). Not
// NVML's: on an H200 at its power cap the counters read 7-9% below NVML in GEMMs
// (gpc_clock_sampler.h).

#include "bench/timing/gpc_clock_sampler.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "quant/base/cuda_check.h"
#include "tests/bench/sm_clock_probe.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

// A measurement's first sample, which reaches back before it began (here: 0.46 s at 500 MHz).
constexpr GpcSample kReachingBack{0, 460'000'000, 230'000'000, 100'000'000};

TEST(SummarizeGpcSamples, IsAllCyclesOverAllTimeAndNamesTheSlowestSample) {
  // 2 ms at 1500 MHz and 1 ms at 1200 MHz: 4.2 million cycles in 3 ms.
  const GpcClockSummary summary =
      summarize_gpc_samples({kReachingBack,
                             {1'000'000, 3'000'000, 3'000'000, 2'700'000},
                             {3'000'000, 4'000'000, 1'200'000, 600'000}});
  EXPECT_EQ(summary.samples, 2);
  EXPECT_DOUBLE_EQ(summary.seconds, 0.003);
  EXPECT_DOUBLE_EQ(summary.mean_mhz, 1400);
  EXPECT_DOUBLE_EQ(summary.min_mhz, 1200);
  ASSERT_TRUE(summary.sm_active_pct.has_value());
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 100.0 * 3'300'000 / 4'200'000);
}

TEST(SummarizeGpcSamples, LeavesOutTheFirstSampleAndSamplesWithoutDuration) {
  const GpcClockSummary summary =
      summarize_gpc_samples({{0, 1'000'000, 3'000'000, 3'000'000},  // first: left out
                             {5'000, 5'000, 100, 50},
                             {9'000, 8'000, 100, 50},
                             {0, 1'000'000, 1'000'000, 250'000}});
  EXPECT_EQ(summary.samples, 1);
  EXPECT_DOUBLE_EQ(summary.seconds, 0.001);
  EXPECT_DOUBLE_EQ(summary.mean_mhz, 1000);
  EXPECT_DOUBLE_EQ(summary.min_mhz, 1000);
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 25);
  EXPECT_EQ(summarize_gpc_samples({kReachingBack}).samples, 0);
}

TEST(SummarizeGpcSamples, SmActivityOnlyFromSamplesThatCountedIt) {
  const GpcSample without_activity{0, 1'000'000, 1'000'000, std::nullopt};
  EXPECT_FALSE(summarize_gpc_samples({kReachingBack, without_activity}).sm_active_pct.has_value());
  // Half the cycles come with an activity count: the share is of those cycles only.
  const GpcClockSummary summary = summarize_gpc_samples(
      {kReachingBack, without_activity, {1'000'000, 2'000'000, 1'000'000, 800'000}});
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 80);
}

TEST(SummarizeGpcSamples, NoSamplesIsAnEmptySummary) {
  const GpcClockSummary summary = summarize_gpc_samples({});
  EXPECT_EQ(summary.samples, 0);
  EXPECT_EQ(summary.seconds, 0);
  EXPECT_EQ(summary.mean_mhz, 0);
  EXPECT_FALSE(summary.sm_active_pct.has_value());
}

TEST(GpcClockSampler, WithoutAGpuItIsUnavailableAndHarmless) {
  if (::gemmscope::testing::gpu_unavailable_reason().empty())
    GTEST_SKIP() << "a GPU is present";
  GpcClockSampler sampler(0);
  EXPECT_FALSE(sampler.available());
  EXPECT_FALSE(sampler.unavailable_reason().empty());
  sampler.start();
  EXPECT_EQ(sampler.stop().samples, 0);
  EXPECT_EQ(sampler.stop().samples, 0);
}

TEST(GpcClockSampler, CountsTheCyclesTheSmsCount) {
  GEMMSCOPE_REQUIRE_GPU();
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(nullptr));  // the context PM sampling attaches to
  GpcClockSampler sampler(0);
  if (!sampler.available())
    GTEST_SKIP() << "no PM sampling here: " << sampler.unavailable_reason();
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const std::unique_ptr<CUstream_st, cudaError_t (*)(cudaStream_t)> stream_owner(stream,
                                                                                 cudaStreamDestroy);
  ::gemmscope::testing::busy_sms_clock_mhz(0.1, stream);  // off the idle clock
  // The first measurement of a new sampler, and the next.
  for (const char* which : {"first", "second"}) {
    SCOPED_TRACE(which);
    sampler.start();
    const double sm_mhz = ::gemmscope::testing::busy_sms_clock_mhz(0.3, stream);
    const GpcClockSummary gpc = sampler.stop();
    ASSERT_TRUE(sampler.available()) << sampler.unavailable_reason();
    const std::string seen = std::to_string(gpc.samples) + " samples over " +
                             std::to_string(gpc.seconds) + " s, slowest " +
                             std::to_string(gpc.min_mhz) + " MHz";
    // The samples cover the 0.3 s (and a little on either side of it).
    EXPECT_GE(gpc.seconds, 0.27) << seen;
    EXPECT_LE(gpc.seconds, 0.6) << seen;
    EXPECT_GT(sm_mhz, 300);
    EXPECT_LT(sm_mhz, 3000);
    EXPECT_NEAR(gpc.mean_mhz, sm_mhz, 0.02 * sm_mhz)
        << "the SMs' clock64() and the GPC counters; " << seen;
    EXPECT_LE(gpc.min_mhz, gpc.mean_mhz);
    ASSERT_TRUE(gpc.sm_active_pct.has_value());
    EXPECT_GT(*gpc.sm_active_pct, 90) << seen;  // every SM has a block all along
    EXPECT_LE(*gpc.sm_active_pct, 100.5);
  }
}

}  // namespace
}  // namespace gemmscope
