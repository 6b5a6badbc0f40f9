#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/timing/timeline.h"

namespace gemmscope {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

class TimelineTest : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  const std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                      ("timeline_test_" + std::to_string(::getpid()) + ".csv");
};

TEST_F(TimelineTest, EveryRowHasTheHeadersColumnsAndReadingsCarryTheirState) {
  {
    Timeline timeline(path_.string());
    PowerReading full;
    full.time_s = 1.5;
    full.sm_clock_mhz = 1440;
    full.instant_power_w = 701.5;
    full.average_power_w = 690;
    full.temperature_c = 59;
    full.memory_clock_mhz = 2619;
    full.clock_event_reasons = 0x4;  // SW power cap
    PowerReading bare;               // what a GPU without power or temperature sensors gives
    bare.time_s = 1.505;
    bare.sm_clock_mhz = 1980;
    SettleResult settle;
    settle.attempted = true;
    settle.settled = true;
    settle.seconds = 1.25;
    settle.end_s = 1.6;
    GroupSamples samples;
    samples.members.resize(1);
    samples.members[0].seconds = {0.002};
    samples.members[0].end_times_s = {1.7};
    timeline.write_group("FP8Delayed", {"FP8Delayed/Fprop/qkv"}, settle, samples, {full, bare});
  }
  const std::vector<std::string> lines = lines_of(path_);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "event,time_s,group,case,seconds,sm_clock_mhz,instant_power_w,average_power_w,"
            "temperature_c,memory_clock_mhz,clock_event_reasons");
  for (const std::string& line : lines)
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 10) << line;
  EXPECT_EQ(lines[1],
            "reading,1.5,FP8Delayed,,,1440,701.500000,690.000000,59.000000,2619.000000,0x4");
  EXPECT_EQ(lines[2], "reading,1.505,FP8Delayed,,,1980,,,,,0x0");
  EXPECT_EQ(lines[3], "settled,1.6,FP8Delayed,,1.25,,,,,,");
  EXPECT_EQ(lines[4], "sample,1.7,FP8Delayed,FP8Delayed/Fprop/qkv,0.002,,,,,,");
}

TEST_F(TimelineTest, AnUnwritableFileIsNamed) {
  try {
    Timeline timeline("/nonexistent-directory/timeline.csv");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-directory/timeline.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace gemmscope
