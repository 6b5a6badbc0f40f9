// The clock monitor: reason bits named as nvml.h defines them, harmless without NVML, and real
// SM clock samples on a GPU.

#include "bench/timing/clock_monitor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

TEST(ClockEventReasonsText, NamesEachSlowdownByItsNvmlBit) {
  EXPECT_EQ(clock_event_reasons_text(0x4), "SW power cap");
  EXPECT_EQ(clock_event_reasons_text(0x8), "HW slowdown");
  EXPECT_EQ(clock_event_reasons_text(0x20), "SW thermal slowdown");
  EXPECT_EQ(clock_event_reasons_text(0x40), "HW thermal slowdown");
  EXPECT_EQ(clock_event_reasons_text(0x80), "HW power brake");
}

TEST(ClockEventReasonsText, ListsSeveralSlowdownsInBitOrder) {
  EXPECT_EQ(clock_event_reasons_text(0x40 | 0x8 | 0x4),
            "SW power cap, HW slowdown, HW thermal slowdown");
}

TEST(ClockEventReasonsText, IgnoresReasonsThatAreNotSlowdowns) {
  EXPECT_EQ(clock_event_reasons_text(0), "");
  // GPU idle, applications clocks, sync boost, display clocks, and bits NVML may add later.
  EXPECT_EQ(clock_event_reasons_text(0x1 | 0x2 | 0x10 | 0x100 | (1ull << 40)), "");
  EXPECT_EQ(clock_event_reasons_text(0x1 | 0x4), "SW power cap");
}

TEST(ClockMonitor, WithoutAGpuItIsUnavailableAndHarmless) {
  if (::gemmscope::testing::gpu_unavailable_reason().empty())
    GTEST_SKIP() << "a GPU is present";
  ClockMonitor monitor(0);
  EXPECT_FALSE(monitor.available());
  EXPECT_FALSE(monitor.unavailable_reason().empty());
  monitor.start();
  monitor.start();
  const ClockSummary summary = monitor.stop();
  EXPECT_EQ(summary.samples, 0);
  EXPECT_EQ(summary.event_reasons, 0u);
  EXPECT_FALSE(summary.mean_power_w.has_value());
  EXPECT_EQ(monitor.stop().samples, 0);
}

TEST(ClockMonitor, StartAndStopMayComeInAnyOrderFromAnyThread) {
  ClockMonitor monitor(0);
  EXPECT_EQ(monitor.stop().samples, 0);  // never started
  monitor.start();
  monitor.start();  // discards the first measurement
  monitor.stop();
  EXPECT_EQ(monitor.stop().samples, 0);  // already stopped
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&monitor] {
      for (int i = 0; i < 20; ++i) {
        monitor.start();
        monitor.stop();
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  monitor.start();  // still sampling when destroyed
}

TEST(ClockMonitor, SamplesThePlausibleSmClockOfTheGpu) {
  GEMMSCOPE_REQUIRE_GPU();
  ClockMonitor monitor(0);
  ASSERT_TRUE(monitor.available()) << monitor.unavailable_reason();
  EXPECT_TRUE(monitor.unavailable_reason().empty());
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const ClockSummary summary = monitor.stop();
  // One sample every 5 ms; a loaded machine may take fewer.
  EXPECT_GE(summary.samples, 3);
  EXPECT_GT(summary.min_sm_clock_mhz, 100.0);
  EXPECT_LE(summary.min_sm_clock_mhz, summary.mean_sm_clock_mhz);
  EXPECT_LT(summary.mean_sm_clock_mhz, 5000.0);
  if (summary.mean_power_w) {
    EXPECT_GT(*summary.mean_power_w, 0.0);
  }
}

}  // namespace
}  // namespace gemmscope
