// The GPC clock sampler: how samples become a clock (synthetic samples), harmless without a
// GPU, and on a GPU a clock that NVML's agrees with while work runs.

#include "bench/gpc_clock_sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "bench/clock_monitor.h"
#include "kernels/device_buffer.h"
#include "kernels/random_fill.h"
#include "quant/cuda_check.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

TEST(SummarizeGpcSamples, IsAllCyclesOverAllTimeAndNamesTheSlowestSample) {
  // 2 ms at 1500 MHz and 1 ms at 1200 MHz: 4.2 million cycles in 3 ms.
  const GpcClockSummary summary = summarize_gpc_samples(
      {{1'000'000, 3'000'000, 3'000'000, 2'700'000}, {3'000'000, 4'000'000, 1'200'000, 600'000}});
  EXPECT_EQ(summary.samples, 2);
  EXPECT_DOUBLE_EQ(summary.mean_mhz, 1400);
  EXPECT_DOUBLE_EQ(summary.min_mhz, 1200);
  ASSERT_TRUE(summary.sm_active_pct.has_value());
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 100.0 * 3'300'000 / 4'200'000);
}

TEST(SummarizeGpcSamples, LeavesOutSamplesWithoutDuration) {
  const GpcClockSummary summary = summarize_gpc_samples(
      {{5'000, 5'000, 100, 50}, {9'000, 8'000, 100, 50}, {0, 1'000'000, 1'000'000, 250'000}});
  EXPECT_EQ(summary.samples, 1);
  EXPECT_DOUBLE_EQ(summary.mean_mhz, 1000);
  EXPECT_DOUBLE_EQ(summary.min_mhz, 1000);
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 25);
}

TEST(SummarizeGpcSamples, SmActivityOnlyFromSamplesThatCountedIt) {
  GpcSample without_activity{0, 1'000'000, 1'000'000, std::nullopt};
  EXPECT_FALSE(summarize_gpc_samples({without_activity}).sm_active_pct.has_value());
  // Half the cycles come with an activity count: the share is of those cycles only.
  const GpcClockSummary summary =
      summarize_gpc_samples({without_activity, {1'000'000, 2'000'000, 1'000'000, 800'000}});
  EXPECT_DOUBLE_EQ(*summary.sm_active_pct, 80);
}

TEST(SummarizeGpcSamples, NoSamplesIsAnEmptySummary) {
  const GpcClockSummary summary = summarize_gpc_samples({});
  EXPECT_EQ(summary.samples, 0);
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

TEST(GpcClockSampler, AgreesWithNvmlWhileTheGpuWorks) {
  GEMMSCOPE_REQUIRE_GPU();
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(nullptr));  // the context PM sampling attaches to
  GpcClockSampler sampler(0);
  if (!sampler.available())
    GTEST_SKIP() << "no PM sampling here: " << sampler.unavailable_reason();
  ClockMonitor nvml(0);
  DeviceBuffer<float> buffer(64 << 20);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const std::unique_ptr<CUstream_st, cudaError_t (*)(cudaStream_t)> stream_owner(stream,
                                                                                 cudaStreamDestroy);
  // Fills back to back, 100 (about 10 ms) between waits: the GPU must not idle, because an
  // idle GPC's clock is gated and its cycles stop counting (one fill at a time, each waited
  // for, read two thirds of NVML's clock on an H100).
  const auto busy = [&](double seconds) {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t seed = 1;
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds;
         seed += 100) {
      for (uint64_t i = 0; i < 100; ++i)
        fill_normal(buffer.get(), buffer.size(), seed + i, 0, 1, stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  };
  busy(0.2);  // off the idle clock first
  nvml.start();
  sampler.start();
  busy(0.5);
  const GpcClockSummary gpc = sampler.stop();
  const ClockSummary clocks = nvml.stop();
  ASSERT_TRUE(sampler.available()) << sampler.unavailable_reason();
  // 0.5 s at one sample every 2 ms.
  EXPECT_GE(gpc.samples, 150);
  EXPECT_LE(gpc.samples, 400);
  EXPECT_GE(gpc.min_mhz, 100);
  EXPECT_LE(gpc.min_mhz, gpc.mean_mhz);
  EXPECT_GT(gpc.mean_mhz, 300);
  EXPECT_LT(gpc.mean_mhz, 3000);
  ASSERT_TRUE(gpc.sm_active_pct.has_value());
  EXPECT_GT(*gpc.sm_active_pct, 50);
  EXPECT_LE(*gpc.sm_active_pct, 100.5);
  if (nvml.available()) {
    ASSERT_GT(clocks.samples, 0);
    EXPECT_NEAR(gpc.mean_mhz, clocks.mean_sm_clock_mhz, 0.05 * clocks.mean_sm_clock_mhz)
        << "PM sampling and NVML disagree on the clock";
  }
  // A second measurement starts afresh.
  sampler.start();
  busy(0.1);
  const GpcClockSummary again = sampler.stop();
  EXPECT_GE(again.samples, 20);
  EXPECT_LE(again.samples, 100);
}

}  // namespace
}  // namespace gemmscope
