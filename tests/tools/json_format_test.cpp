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
      "speedup_vs_bf16": {"BF16": 1.0, "FP8Current": 2.0},
      "implementation": {"BF16": "unknown", "FP8Current": "unknown"}})"));
  EXPECT_FALSE(out["modes"]["prequant"].contains("per_layer_ms")) << "no model cases";
}

TEST(JsonFormat, ADenseRunKeepsItsKeysAndGetsTheNewOnesAfterThem) {
  json out = json::parse(format_json(report_of({"model_gb17_ns.json"})));
  EXPECT_EQ(keys_of(out), (std::vector<std::string>{
                              "device", "num_hidden_layers", "model", "tokens", "files", "context",
                              "include_emulated", "quantize_cases_ignored", "unparsed_entries",
                              "warnings", "modes", "layers_per_op", "layers_per_kind"}));
  json autocast = out["modes"]["autocast"];
  EXPECT_EQ(keys_of(autocast),
            (std::vector<std::string>{"per_op_ms", "per_pass_ms", "per_layer_ms", "model_ms",
                                      "speedup_vs_bf16", "emulated", "na_reasons", "per_op_shape",
                                      "model_pass_ms", "model_fprop_dgrad_ms", "per_layer_kind_ms",
                                      "per_op_implementation"}));
  EXPECT_EQ(out["layers_per_op"],
            json::parse(R"({"qkv": 4, "attn_out": 4, "mlp_up": 4, "mlp_down": 4})"));
  EXPECT_EQ(out["layers_per_kind"], json::object());
  EXPECT_EQ(autocast["per_op_shape"]["Wgrad"]["qkv"],
            json::parse(R"({"M": 1024, "K": 2048, "N": 3072})"));
  EXPECT_EQ(autocast["model_pass_ms"]["Fprop"]["BF16"], 24.0);
  EXPECT_EQ(autocast["model_fprop_dgrad_ms"]["FP8Current"], 31.25);
  EXPECT_EQ(autocast["per_layer_kind_ms"], json::object());
}

TEST(JsonFormat, MoeRunHasLayersPerOpAndKindGroupsAndKindTotals) {
  json out = json::parse(format_json(report_of({"moe_deepseek_like_ms.json"})));
  EXPECT_EQ(out["layers_per_op"],
            json::parse(R"({"q_a": 61, "q_b": 61, "kv_a": 61, "kv_b": 61, "attn_out": 61,
                            "mlp_up": 3, "mlp_down": 3, "shared_up": 58, "shared_down": 58,
                            "expert_up": 58, "expert_down": 58})"));
  EXPECT_EQ(out["layers_per_kind"], json::parse(R"({"dense": 3, "moe": 58})"));
  json autocast = out["modes"]["autocast"];
  EXPECT_EQ(
      keys_of(autocast["per_op_ms"]["Fprop"]),
      (std::vector<std::string>{"q_a", "q_b", "kv_a", "kv_b", "attn_out", "mlp_up", "mlp_down",
                                "shared_up", "shared_down", "expert_up", "expert_down"}));
  EXPECT_EQ(autocast["per_op_shape"]["Wgrad"]["expert_up"],
            json::parse(R"({"M": 1024, "K": 8192, "N": 512, "G": 32})"));
  EXPECT_EQ(autocast["per_op_shape"]["Fprop"]["q_a"],
            json::parse(R"({"M": 2048, "K": 1024, "N": 384})"));
  EXPECT_EQ(autocast["per_layer_kind_ms"],
            json::parse(R"({"dense": {"BF16": 7.875, "FP8Block": 5.90625},
                            "moe": {"BF16": 14.125, "FP8Block": 9.34375}})"));
  EXPECT_EQ(autocast["model_ms"], json::parse(R"({"BF16": 842.875, "FP8Block": 559.65625})"));
  EXPECT_EQ(autocast["model_pass_ms"]["Wgrad"]["BF16"], 319.625);
  EXPECT_EQ(autocast["speedup_vs_bf16"]["FP8Block"], 842.875 / 559.65625);
  EXPECT_TRUE(autocast["per_layer_ms"]["BF16"].is_null());
  EXPECT_TRUE(autocast["per_pass_ms"]["Fprop"]["BF16"].is_null());
  json prequant = out["modes"]["prequant"];
  EXPECT_TRUE(prequant["per_layer_kind_ms"]["moe"]["FP8Block"].is_null());
  EXPECT_EQ(prequant["na_reasons"], json::parse(R"({"FP8Block/Fprop/expert_up":
                "skipped: grouped loop: no cuBLASLt algorithm for this 1x128 layout"})"));
}

TEST(JsonFormat, UnknownLayersPerOpAreNull) {
  EXPECT_TRUE(json::parse(format_json(report_of({"model_no_baseline_us.json"})))["layers_per_op"]
                  .is_null());
  EXPECT_TRUE(
      json::parse(format_json(report_of({"shapes_gb18_ns.json"})))["layers_per_op"].is_null());
}

TEST(JsonFormat, EachOpCellSaysWhichImplementationRanIt) {
  json out = json::parse(format_json(report_of({"moe_mixed_implementations_ms.json"})));
  const json& autocast = out["modes"]["autocast"];
  EXPECT_EQ(keys_of(autocast).back(), "per_op_implementation");
  const json& implementation = autocast["per_op_implementation"];
  EXPECT_EQ(implementation["Fprop"]["q_a"],
            json::parse(R"({"BF16": "cublaslt", "FP8Block": "cutlass"})"));
  EXPECT_EQ(implementation["Wgrad"]["expert_up"],
            json::parse(R"({"BF16": "loop", "FP8Block": "cutlass"})"));
  EXPECT_EQ(implementation["Dgrad"]["expert_down"]["BF16"], "cublas");
  const json& prequant = out["modes"]["prequant"]["per_op_implementation"];
  EXPECT_TRUE(prequant["Fprop"]["expert_up"]["FP8Block"].is_null()) << "skipped";
  EXPECT_EQ(prequant["Dgrad"]["expert_up"]["FP8Block"], "loop");
  EXPECT_EQ(out["context"]["provider"], "auto");
  EXPECT_EQ(out["context"]["cutlass"], "4.2.1");
}

TEST(JsonFormat, OlderRunsCellsAreOfUnknownImplementation) {
  json model = json::parse(format_json(report_of({"model_gb18_ms_repetitions.json"})));
  const json& implementation = model["modes"]["autocast"]["per_op_implementation"];
  EXPECT_EQ(implementation["Fprop"]["qkv"],
            json::parse(R"({"BF16": "unknown", "FP8Block": "unknown", "NVFP4": null})"));
  json shapes = json::parse(format_json(report_of({"shapes_gb18_ns.json"})));
  EXPECT_EQ(shapes["modes"]["autocast"]["per_gemm"][0]["implementation"],
            json::parse(R"({"BF16": "unknown", "FP8Current": "unknown", "MXFP8": "unknown"})"));
}

}  // namespace
}  // namespace gemmscope::report
