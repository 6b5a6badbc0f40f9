#include <gtest/gtest.h>

#include <functional>

#include "bench/timing/gpu_warmup.h"

namespace gemmscope {
namespace {

// Feeds readings at times i * step_s (exact in binary for the steps used here), i = 0 .. last;
// the time of the reading after which the trend first says settled, or -1.
double first_settled(TemperatureTrend& trend, double step_s, int last,
                     const std::function<double(int)>& celsius) {
  for (int i = 0; i <= last; ++i) {
    trend.add(i * step_s, celsius(i));
    if (trend.settled())
      return i * step_s;
  }
  return -1;
}

TEST(TemperatureTrend, NotSettledBeforeTheWindowIsSpanned) {
  TemperatureTrend trend(5, 1);
  EXPECT_FALSE(trend.settled());
  trend.add(0, 60);
  EXPECT_FALSE(trend.settled());  // one reading spans nothing
  trend.add(4.5, 60);
  EXPECT_FALSE(trend.settled());
  trend.add(4.75, 60);
  EXPECT_FALSE(trend.settled());
  trend.add(5, 60);
  EXPECT_TRUE(trend.settled());
}

TEST(TemperatureTrend, FlatSettlesOnceTheWindowIsSpanned) {
  TemperatureTrend trend(5, 1);
  EXPECT_EQ(first_settled(trend, 0.5, 200, [](int) { return 66.0; }), 5.0);
}

TEST(TemperatureTrend, RisingHalfADegreeASecondNeverSettles) {
  // 2.5 C over every 5 s window.
  TemperatureTrend trend(5, 1);
  EXPECT_EQ(first_settled(trend, 0.5, 240, [](int i) { return 40 + 0.25 * i; }), -1);
}

TEST(TemperatureTrend, RisingATenthOfADegreeASecondSettles) {
  // 0.5 C over the 5 s window, less than max_rise 1.
  TemperatureTrend trend(5, 1);
  EXPECT_EQ(first_settled(trend, 0.5, 200, [](int i) { return 60 + 0.05 * i; }), 5.0);
}

TEST(TemperatureTrend, ARiseOfExactlyMaxRiseIsNotLess) {
  // 0.25 C every 1.25 s: exactly 1 C over every 5 s.
  TemperatureTrend trend(5, 1);
  EXPECT_EQ(first_settled(trend, 1.25, 100, [](int i) { return 64 + 0.25 * i; }), -1);
  // The same with a slightly larger allowance settles as soon as the window is spanned.
  TemperatureTrend looser(5, 1.25);
  EXPECT_EQ(first_settled(looser, 1.25, 100, [](int i) { return 64 + 0.25 * i; }), 5.0);
}

TEST(TemperatureTrend, ComparesWithTheReadingAWindowEarlierNotTheFirst) {
  // Rising 1 C/s for 20 s (to 60 C), then flat. At 24 s the reading 5 s earlier was 59 C
  // (a rise of exactly 1 C); at 24.5 s it was 59.5 C: settled. Against the first reading
  // (40 C) it would never settle.
  TemperatureTrend trend(5, 1);
  EXPECT_EQ(first_settled(trend, 0.5, 200, [](int i) { return i <= 40 ? 40 + 0.5 * i : 60.0; }),
            24.5);
}

}  // namespace
}  // namespace gemmscope
