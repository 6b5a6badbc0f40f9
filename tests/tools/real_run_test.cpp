// A real gemm_bench run (NVIDIA H200, the te-tutorial config, every BF16 and FP8 case, Google
// Benchmark 1.8.3), committed as a fixture: the report must read all of it, and its BF16
// per-layer total must equal the sum of the twelve BF16 cases read straight from the JSON.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report_fixtures.h"
#include "tools/report/model_report.h"

namespace gemmscope::report {
namespace {

constexpr const char* kRealRun = "h200_te_tutorial_sweep.json";

TEST(RealRun, EveryEntryIsReadAndEveryTotalIsAvailable) {
  const Report report = testing::report_of({kRealRun});
  EXPECT_TRUE(report.input.unparsed.empty());
  EXPECT_EQ(report.input.quantize_cases, 81u);
  ASSERT_TRUE(report.model.has_value());
  ASSERT_EQ(report.model->modes.size(), 2u);
  for (const ModelModeReport& mode : report.model->modes) {
    for (const Precision precision : mode.precisions) {
      EXPECT_TRUE(mode.per_layer_ms.at(precision).available())
          << mode_name(mode.mode) << " " << precision_name(precision);
      EXPECT_TRUE(mode.speedup_vs_bf16.at(precision).available())
          << mode_name(mode.mode) << " " << precision_name(precision);
    }
  }
}

TEST(RealRun, Bf16PerLayerTotalIsTheSumOfItsCases) {
  std::ifstream in(testing::fixture_path(kRealRun));
  const nlohmann::json run = nlohmann::json::parse(in);
  double sum_ms = 0;
  int cases = 0;
  for (const nlohmann::json& entry : run.at("benchmarks")) {
    const std::string name = entry.at("name");
    if (name.rfind("BF16/", 0) != 0)
      continue;
    ASSERT_EQ(entry.at("time_unit"), "ms");
    sum_ms += entry.at("real_time").get<double>();
    ++cases;
  }
  ASSERT_EQ(cases, 12);
  const Report report = testing::report_of({kRealRun});
  for (const ModelModeReport& mode : report.model->modes) {
    EXPECT_DOUBLE_EQ(mode.per_layer_ms.at(Precision::kBF16).number.value(), sum_ms);
    EXPECT_DOUBLE_EQ(mode.model_ms.at(Precision::kBF16).number.value(), 24 * sum_ms);
  }
}

}  // namespace
}  // namespace gemmscope::report
