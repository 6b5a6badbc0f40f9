#include "tools/report/json_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report_fixtures.h"

namespace gemmscope::report {
namespace {

using json = nlohmann::ordered_json;  // keeps the order the report writes
using testing::report_of;

std::vector<std::string> keys_of(const json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items())
    keys.push_back(item.key());
  return keys;
}

TEST(JsonFormat, HasTheIssuesShapeWithExactNumbers) {
  json out = json::parse(format_json(report_of({"model_gb17_ns.json"})));
  EXPECT_EQ(out["device"], "NVIDIA H200");
  EXPECT_EQ(out["num_hidden_layers"], 4);
  EXPECT_EQ(keys_of(out["modes"]), (std::vector<std::string>{"autocast", "prequant"}));
  json autocast = out["modes"]["autocast"];
  for (const char* key :
       {"per_op_ms", "per_pass_ms", "per_layer_ms", "model_ms", "speedup_vs_bf16"}) {
    EXPECT_TRUE(autocast.contains(key)) << key;
  }
  EXPECT_EQ(keys_of(autocast["per_op_ms"]), (std::vector<std::string>{"Fprop", "Dgrad", "Wgrad"}));
  EXPECT_EQ(keys_of(autocast["per_op_ms"]["Wgrad"]),
            (std::vector<std::string>{"qkv", "attn_out", "mlp_up", "mlp_down"}));
  EXPECT_EQ(keys_of(autocast["per_op_ms"]["Wgrad"]["qkv"]),
            (std::vector<std::string>{"BF16", "FP8Current", "FP8Delayed", "MXFP8"}));
  EXPECT_EQ(autocast["per_op_ms"]["Wgrad"]["qkv"]["FP8Current"], 1.09375);
  EXPECT_EQ(keys_of(autocast["per_pass_ms"]),
            (std::vector<std::string>{"Fprop", "Dgrad", "Wgrad"}));
  EXPECT_EQ(autocast["per_pass_ms"]["Dgrad"]["BF16"], 6.5);
  EXPECT_EQ(autocast["per_layer_ms"],
            json::parse(R"({"BF16": 19, "FP8Current": 11.875, "FP8Delayed": 14.25,
                            "MXFP8": 23.75})"));
  EXPECT_EQ(autocast["model_ms"],
            json::parse(R"({"BF16": 76, "FP8Current": 47.5, "FP8Delayed": 57, "MXFP8": 95})"));
  EXPECT_EQ(autocast["speedup_vs_bf16"]["BF16"], 1.0);
  EXPECT_EQ(autocast["speedup_vs_bf16"]["FP8Current"], 1.6);
  EXPECT_EQ(autocast["speedup_vs_bf16"]["FP8Delayed"], 19.0 / 14.25);
  EXPECT_TRUE(autocast["speedup_vs_bf16"]["MXFP8"].is_null()) << "emulated";
  EXPECT_EQ(autocast["emulated"], json::parse(R"(["MXFP8"])"));
  EXPECT_EQ(keys_of(out["modes"]["prequant"]["per_layer_ms"]),
            (std::vector<std::string>{"BF16", "FP8Current", "MXFP8"}));
  EXPECT_EQ(out["quantize_cases_ignored"], 2);
  EXPECT_EQ(out["unparsed_entries"].size(), 3u);
}

TEST(JsonFormat, NaIsNullWithTheReasonPerOpCell) {
  json out = json::parse(format_json(report_of({"model_gb18_ms_repetitions.json"})));
  json autocast = out["modes"]["autocast"];
  EXPECT_TRUE(autocast["per_op_ms"]["Dgrad"]["mlp_up"]["FP8Block"].is_null());
  EXPECT_EQ(autocast["per_pass_ms"]["Fprop"]["FP8Block"], 4.5);
  EXPECT_TRUE(autocast["per_pass_ms"]["Dgrad"]["FP8Block"].is_null());
  EXPECT_TRUE(autocast["per_layer_ms"]["FP8Block"].is_null());
  EXPECT_TRUE(autocast["model_ms"]["NVFP4"].is_null());
  EXPECT_TRUE(autocast["speedup_vs_bf16"]["NVFP4"].is_null());
  EXPECT_EQ(autocast["na_reasons"]["FP8Block/Dgrad/mlp_up"],
            "skipped: no cuBLASLt algorithm for this 1x128 layout");
  EXPECT_EQ(out["modes"]["prequant"]["na_reasons"],
            json::parse(R"({"FP8Block/Wgrad/mlp_down": "missing from the input"})"));
}

TEST(JsonFormat, UnknownDeviceAndLayersAreNull) {
  json out = json::parse(format_json(report_of({"model_no_baseline_us.json"})));
  EXPECT_TRUE(out["device"].is_null());
  EXPECT_TRUE(out["num_hidden_layers"].is_null());
  EXPECT_TRUE(out["modes"]["autocast"]["model_ms"]["FP8Current"].is_null());
  EXPECT_TRUE(out["modes"]["autocast"]["speedup_vs_bf16"]["FP8Current"].is_null());
}

TEST(JsonFormat, ShapesRunHasOneObjectPerGemm) {
  json out = json::parse(format_json(report_of({"shapes_gb18_ns.json"})));
  EXPECT_TRUE(out["num_hidden_layers"].is_null());
  json rows = out["modes"]["prequant"]["per_gemm"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], json::parse(R"({"op": "gemm1", "pass": "Fprop", "M": 2048, "K": 8192,
      "N": 1024, "ms": {"BF16": 0.0625, "FP8Current": 0.03125},
      "tflops": {"BF16": 549.755813888, "FP8Current": 1099.511627776},
      "speedup_vs_bf16": {"BF16": 1.0, "FP8Current": 2.0}})"));
  EXPECT_FALSE(out["modes"]["prequant"].contains("per_layer_ms")) << "no model cases";
}

}  // namespace
}  // namespace gemmscope::report
