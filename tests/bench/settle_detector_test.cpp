#include "bench/timing/settle_detector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>

namespace gemmscope {
namespace {

// Readings every 5 ms: reading i is taken at i / 200 s (exact at every window boundary).
constexpr int kReadingsPerSecond = 200;
constexpr double kPi = 3.14159265358979323846;

double time_of(int i) {
  return static_cast<double>(i) / kReadingsPerSecond;
}

PowerReading at_cap(int i, double clock_mhz, double instant_w = 690, double average_w = 690,
                    double limit_w = 700) {
  PowerReading reading;
  reading.time_s = time_of(i);
  reading.sm_clock_mhz = clock_mhz;
  reading.instant_power_w = instant_w;
  reading.average_power_w = average_w;
  reading.power_limit_w = limit_w;
  return reading;
}

PowerReading clock_only(int i, double clock_mhz) {
  PowerReading reading;
  reading.time_s = time_of(i);
  reading.sm_clock_mhz = clock_mhz;
  return reading;
}

// Feeds readings 0 .. last; the index of the reading after which the detector first says
// settled, or -1.
int first_settled(SettleDetector& detector, int last,
                  const std::function<PowerReading(int)>& reading) {
  for (int i = 0; i <= last; ++i) {
    detector.add(reading(i));
    if (detector.settled())
      return i;
  }
  return -1;
}

// The defaults: 4 windows of 250 ms, so the earliest a steady GPU settles is the reading at
// 1.000 s, which closes the fourth window [0.75 s, 1 s).
constexpr int kFourWindows = 200;

TEST(SettleDetector, FlatAtTheCapSettlesAfterExactlyFourWindows) {
  SettleDetector detector;
  EXPECT_EQ(first_settled(detector, 2000, [](int i) { return at_cap(i, 1500); }), kFourWindows);
}

TEST(SettleDetector, OtherWindowSettingsScaleTheSettlingTime) {
  SettleSettings settings;
  settings.windows = 3;
  settings.window_s = 0.5;
  SettleDetector detector(settings);
  EXPECT_EQ(first_settled(detector, 2000, [](int i) { return at_cap(i, 1500); }), 300);
}

// A window of a quarter period of sin averages at least 2/pi of the amplitude away from the
// period's mean whatever its phase: 6% swings put every 250 ms window 3.8% or more away.
TEST(SettleDetector, SixPercentSwingOfOneSecondNeverSettles) {
  for (double phase : {0.0, kPi / 4, kPi / 3, kPi / 2}) {
    SettleDetector detector;
    EXPECT_EQ(first_settled(detector, 20 * kReadingsPerSecond,
                            [phase](int i) {
                              return at_cap(
                                  i, 1500 * (1 + 0.06 * std::sin(2 * kPi * time_of(i) + phase)));
                            }),
              -1)
        << phase;
  }
}

// 2% swings: at most 2% * (2/pi) * sqrt(2) = 1.8% away, inside the 3% band.
TEST(SettleDetector, TwoPercentSwingSettles) {
  for (double phase : {0.0, kPi / 4, kPi / 3}) {
    SettleDetector detector;
    EXPECT_EQ(first_settled(detector, 20 * kReadingsPerSecond,
                            [phase](int i) {
                              return at_cap(
                                  i, 1500 * (1 + 0.02 * std::sin(2 * kPi * time_of(i) + phase)));
                            }),
              kFourWindows)
        << phase;
  }
}

// 1980 MHz for 0.8 s (readings 0..159), 1275 MHz (15% under) until 1.3 s (160..259), then
// 1500 MHz. Window means: [0.75, 1.0) (10 x 1980 + 40 x 1275) / 50 = 1416, [1.0, 1.25) 1275,
// [1.25, 1.5) (10 x 1275 + 40 x 1500) / 50 = 1455, then 1500. The first four that agree
// within 3% of their mean: 1455, 1500, 1500, 1500 (mean 1488.75, 1455 is 2.3% off), closed
// by the reading at 2.25 s. The four before (1275, 1455, 1500, 1500) do not: 1275 is 11% off.
TEST(SettleDetector, TransientSettlesOnlyAfterIt) {
  SettleDetector detector;
  EXPECT_EQ(first_settled(detector, 20 * kReadingsPerSecond,
                          [](int i) {
                            if (i < 160)
                              return at_cap(i, 1980, 760, 690);  // above the cap at first
                            if (i < 260)
                              return at_cap(i, 1275, 650, 690);
                            return at_cap(i, 1500);
                          }),
            450);
}

TEST(SettleDetector, InstantPowerFifteenPercentUnderTheAverageAtTheLimitPreventsSettling) {
  SettleDetector detector;
  EXPECT_EQ(first_settled(detector, 20 * kReadingsPerSecond,
                          [](int i) { return at_cap(i, 1500, 690 * 0.85, 690, 700); }),
            -1);
}

TEST(SettleDetector, InstantPowerFivePercentOffAtTheLimitSettles) {
  SettleDetector under;
  EXPECT_EQ(first_settled(under, 2000, [](int i) { return at_cap(i, 1500, 690 * 0.95, 690, 700); }),
            kFourWindows);
  SettleDetector over;
  EXPECT_EQ(first_settled(over, 2000, [](int i) { return at_cap(i, 1500, 690 * 1.05, 690, 700); }),
            kFourWindows);
}

TEST(SettleDetector, BelowNinetyPercentOfTheLimitPowerIsIgnored) {
  // Average 620 W < 0.9 x 700 W = 630 W: instant 20% off does not matter.
  SettleDetector below;
  EXPECT_EQ(first_settled(below, 2000, [](int i) { return at_cap(i, 1980, 620 * 0.8, 620, 700); }),
            kFourWindows);
  // Average 640 W >= 630 W: the same 20% now prevents settling.
  SettleDetector above;
  EXPECT_EQ(first_settled(above, 2000, [](int i) { return at_cap(i, 1980, 640 * 0.8, 640, 700); }),
            -1);
}

// Readings for 0.5 s (two windows), nothing until 1.5 s, then readings again. The empty
// windows of the gap are no windows: the fourth is [1.75 s, 2 s), closed at 2 s, not at 1.5 s.
TEST(SettleDetector, AGapLongerThanAWindowDoesNotCountAsWindows) {
  SettleDetector detector;
  for (int i = 0; i < 100; ++i) {
    detector.add(at_cap(i, 1500));
    ASSERT_FALSE(detector.settled()) << i;
  }
  int settled_at = -1;
  for (int i = 300; i <= 2000 && settled_at < 0; ++i) {
    detector.add(at_cap(i, 1500));
    if (detector.settled())
      settled_at = i;
  }
  EXPECT_EQ(settled_at, 400);
}

TEST(SettleDetector, WithoutPowerFieldsTheClockAloneDecides) {
  SettleDetector flat;
  EXPECT_EQ(first_settled(flat, 2000, [](int i) { return clock_only(i, 1755); }), kFourWindows);
  SettleDetector swinging;
  EXPECT_EQ(
      first_settled(
          swinging, 4000,
          [](int i) { return clock_only(i, 1500 * (1 + 0.06 * std::sin(2 * kPi * time_of(i)))); }),
      -1);
  // Power without its limit cannot be judged either: the clock decides.
  SettleDetector partial;
  EXPECT_EQ(first_settled(partial, 2000,
                          [](int i) {
                            PowerReading reading = clock_only(i, 1500);
                            reading.instant_power_w = 400;
                            reading.average_power_w = 690;
                            return reading;
                          }),
            kFourWindows);
}

TEST(SettleDetector, OnceSettledStaysSettled) {
  SettleDetector detector;
  ASSERT_EQ(first_settled(detector, 2000, [](int i) { return at_cap(i, 1500); }), kFourWindows);
  for (int i = kFourWindows + 1; i < 2000; ++i) {
    detector.add(at_cap(i, i % 2 == 0 ? 300 : 2000, 100, 690, 700));
    ASSERT_TRUE(detector.settled()) << i;
  }
}

}  // namespace
}  // namespace gemmscope
