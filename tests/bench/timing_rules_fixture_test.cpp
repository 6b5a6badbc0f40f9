// bench/timing's rules over tests/tools/fixtures/timing_rules.json: inputs, with the outputs these
// rules give. The peers restate the rules in Python (tools/peers/timing.py), and
// tests/tools/timing_rules_test.py holds that copy to the same file, so a rule changed on one
// side only fails one of the two tests.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/timing/clock_monitor.h"
#include "bench/timing/gpu_warmup.h"
#include "bench/timing/sample_statistics.h"
#include "bench/timing/settle_detector.h"
#include "bench/timing/stopping_rule.h"

namespace gemmscope {
namespace {

using nlohmann::json;

const json& fixture() {
  static const json parsed = [] {
    std::ifstream file(TIMING_RULES_FIXTURE);
    if (!file)
      throw std::runtime_error("cannot read " + std::string(TIMING_RULES_FIXTURE));
    return json::parse(file);
  }();
  return parsed;
}

std::optional<double> optional_number(const json& value) {
  if (value.is_null())
    return std::nullopt;
  return value.get<double>();
}

// Means and intervals to 1e-12 relative: the file holds them as this build computed them, and
// another compiler may round a sum differently in the last bits.
void expect_close(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * std::abs(expected));
}

TEST(TimingRulesFixture, ConstantsAreGemmBenchDefaults) {
  const json& constants = fixture().at("constants");
  const SettleSettings settle;
  EXPECT_EQ(settle.window_s, constants.at("settle_window_s").get<double>());
  EXPECT_EQ(settle.windows, constants.at("settle_windows").get<int>());
  EXPECT_EQ(settle.clock_band_pct, constants.at("settle_clock_band_pct").get<double>());
  EXPECT_EQ(settle.power_tolerance_pct, constants.at("settle_power_tolerance_pct").get<double>());
  EXPECT_EQ(settle.capped_share_of_limit,
            constants.at("settle_capped_share_of_limit").get<double>());
  EXPECT_EQ(kBatches, constants.at("batches").get<int>());
  EXPECT_EQ(kOutlierFactor, constants.at("outlier_factor").get<double>());
  const WarmupSettings warmup;
  EXPECT_EQ(warmup.window_s, constants.at("warmup_window_s").get<double>());
  EXPECT_EQ(warmup.max_rise_c, constants.at("warmup_max_rise_c").get<double>());
  EXPECT_EQ(kClockSlowdowns, constants.at("clock_slowdown_bits").get<unsigned long long>());
}

TEST(TimingRulesFixture, ClockEvents) {
  const json& cases = fixture().at("clock_events");
  ASSERT_GE(cases.size(), 5u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const auto reasons = c.at("reasons").get<unsigned long long>();
    EXPECT_EQ(clock_event_reasons_text(reasons), c.at("text").get<std::string>());
    EXPECT_EQ((reasons & kClockSlowdowns) != 0, c.at("clock_limited").get<bool>());
  }
}

TEST(TimingRulesFixture, SettleDetector) {
  const json& cases = fixture().at("settle_detector");
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    SettleDetector detector;
    std::string settled;
    for (const json& reading : c.at("readings")) {
      PowerReading power;
      power.time_s = reading.at(0).get<double>();
      power.sm_clock_mhz = reading.at(1).get<double>();
      power.instant_power_w = optional_number(reading.at(2));
      power.average_power_w = optional_number(reading.at(3));
      power.power_limit_w = optional_number(reading.at(4));
      detector.add(power);
      settled += detector.settled() ? '1' : '0';
    }
    EXPECT_EQ(settled, c.at("settled").get<std::string>());
  }
}

TEST(TimingRulesFixture, SampleStatistics) {
  const json& cases = fixture().at("sample_statistics");
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const SampleSummary summary = summarize_samples(c.at("samples").get<std::vector<double>>());
    expect_close(summary.mean, c.at("mean").get<double>());
    EXPECT_EQ(summary.outliers, c.at("outliers").get<int>());
    const double noise_pct = relative_half_width_pct(summary);
    const json& expected = c.at("relative_half_width_pct");
    if (expected.is_null()) {
      EXPECT_TRUE(std::isinf(noise_pct)) << noise_pct;
    } else {
      expect_close(noise_pct, expected.get<double>());
    }
  }
}

TEST(TimingRulesFixture, NoiseTargetMet) {
  const json& cases = fixture().at("noise_target_met");
  ASSERT_GE(cases.size(), 5u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    SamplingSettings settings;
    settings.max_noise_pct = c.at("max_noise_pct").get<double>();
    settings.min_samples = c.at("min_samples").get<int>();
    EXPECT_EQ(noise_target_met(settings, c.at("samples").get<std::vector<double>>()),
              c.at("met").get<bool>());
  }
}

std::string verdict_name(SamplingVerdict verdict) {
  switch (verdict) {
    case SamplingVerdict::kContinue:
      return "continue";
    case SamplingVerdict::kTargetReached:
      return "target reached";
    case SamplingVerdict::kTimedOut:
      return "timed out";
  }
  return "?";
}

TEST(TimingRulesFixture, SamplingVerdict) {
  const json& cases = fixture().at("sampling_verdict");
  ASSERT_GE(cases.size(), 10u);
  for (const json& c : cases) {
    SCOPED_TRACE(c.dump());
    SamplingSettings settings;
    settings.min_time_s = c.at("min_time_s").get<double>();
    settings.min_time_capped_s = c.at("min_time_capped_s").get<double>();
    settings.max_time_s = c.at("max_time_s").get<double>();
    const SamplingVerdict verdict =
        sampling_verdict(settings, c.at("elapsed_s").get<double>(), c.at("targets_met").get<bool>(),
                         c.at("clock_limited").get<bool>());
    EXPECT_EQ(verdict_name(verdict), c.at("verdict").get<std::string>());
  }
}

TEST(TimingRulesFixture, TemperatureTrend) {
  const json& trend = fixture().at("temperature_trend");
  ASSERT_GE(trend.at("cases").size(), 4u);
  for (const json& c : trend.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    TemperatureTrend temperatures(trend.at("window_s").get<double>(),
                                  trend.at("max_rise_c").get<double>());
    std::string settled;
    for (const json& reading : c.at("readings")) {
      temperatures.add(reading.at(0).get<double>(), reading.at(1).get<double>());
      settled += temperatures.settled() ? '1' : '0';
    }
    EXPECT_EQ(settled, c.at("settled").get<std::string>());
  }
}

}  // namespace
}  // namespace gemmscope
