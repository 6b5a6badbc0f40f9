#include "tools/report/svg_chart.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"
#include "xml_well_formed.h"

namespace gemmscope::report {
namespace {

using testing::report_of;
using testing::xml_well_formedness_error;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(SvgChart, IsWellFormedXmlWithOneStackedBarPerPrecisionAndMode) {
  const std::string svg = render_svg_chart(report_of({"model_gb17_ns.json"}));
  EXPECT_EQ(xml_well_formedness_error(svg), "");
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  // autocast: BF16, FP8Current, FP8Delayed, MXFP8; prequant: BF16, FP8Current, MXFP8. Each bar
  // has a Fprop + Dgrad and a Wgrad segment per op, each with a tooltip.
  EXPECT_EQ(count_of(svg, "<title>"), 7u * 8u);
  EXPECT_EQ(count_of(svg, "<title>FP8Current qkv Fprop + Dgrad: "), 2u);
  EXPECT_NE(svg.find("<title>FP8Delayed mlp_down Wgrad: 1.688 ms</title>"), std::string::npos);
}

TEST(SvgChart, LabelsBarsWithSpeedupAndTotalAndHasTitleAxisAndLegend) {
  const std::string svg = render_svg_chart(report_of({"model_gb17_ns.json"}));
  EXPECT_NE(svg.find(">Per-layer GEMM time of one training step · NVIDIA H200</text>"),
            std::string::npos);
  EXPECT_NE(svg.find(">test-tiny · 2048 tokens per step · 4 layers · cuBLASLt 13.1.0</text>"),
            std::string::npos);
  EXPECT_EQ(count_of(svg, ">1.00x</text>"), 2u);  // BF16 in both modes
  EXPECT_NE(svg.find(">1.60x</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1.33x</text>"), std::string::npos);
  EXPECT_NE(svg.find(">2.00x</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, ">emulated</text>"), 2u);  // MXFP8 left out of speedups
  EXPECT_NE(svg.find(">11.875 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">ms per layer (Fprop + Dgrad + Wgrad)</text>"), std::string::npos);
  for (const char* tick :
       {">0</text>", ">5</text>", ">10</text>", ">15</text>", ">20</text>", ">25</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_NE(svg.find(">mlp_down Wgrad</text>"), std::string::npos);
  EXPECT_NE(svg.find(">qkv Fprop + Dgrad</text>"), std::string::npos);
  EXPECT_NE(svg.find(">autocast</text>"), std::string::npos);
  EXPECT_NE(svg.find(">prequant</text>"), std::string::npos);
}

TEST(SvgChart, IncompleteLayersHaveNoBarAndTheLegendSaysWhy) {
  const std::string svg = render_svg_chart(report_of({"model_gb18_ms_repetitions.json"}));
  EXPECT_EQ(xml_well_formedness_error(svg), "");
  EXPECT_EQ(count_of(svg, "<title>"), 2u * 8u);  // only the BF16 bars
  EXPECT_EQ(count_of(svg, ">n/a</text>"), 3u);
  EXPECT_NE(svg.find(">No bar: a case of the layer was skipped,</text>"), std::string::npos);
}

TEST(SvgChart, TextFromTheInputIsEscaped) {
  const BenchmarkFile file = parse_benchmark_json(
      R"({"context": {"device_name": "GPU <A&B>"}, "benchmarks": [
          {"name": "BF16/Fprop/qkv/native/M:8/K:8/N:8", "real_time": 1, "time_unit": "ms"}]})",
      "x.json");
  const std::string svg = render_svg_chart(build_report(merge_files({file}), {}));
  EXPECT_EQ(xml_well_formedness_error(svg), "");
  EXPECT_NE(svg.find("GPU &lt;A&amp;B&gt;"), std::string::npos);
}

TEST(SvgChart, MoeRunStacksEachOpTimesItsLayersAndLabelsTheLayerKinds) {
  const std::string svg = render_svg_chart(report_of({"moe_deepseek_like_ms.json"}));
  EXPECT_EQ(xml_well_formedness_error(svg), "");
  // Bars: BF16 and FP8Block in autocast, BF16 in prequant (its FP8Block skipped a case); 11 ops
  // of two segments each.
  EXPECT_EQ(count_of(svg, "<title>"), 3u * 22u);
  EXPECT_NE(svg.find("<title>FP8Block expert_up Wgrad × 58 layers: 90.625 ms</title>"),
            std::string::npos);
  EXPECT_NE(svg.find("<title>BF16 mlp_up Fprop + Dgrad × 3 layers: 6.000 ms</title>"),
            std::string::npos);
  EXPECT_NE(svg.find(">GEMM time of one training step, all layers · NVIDIA H200</text>"),
            std::string::npos);
  EXPECT_NE(svg.find(">test-moe · 2048 tokens per step · 61 layers (3 dense, 58 MoE) · cuBLASLt "
                     "13.1.0</text>"),
            std::string::npos);
  EXPECT_NE(svg.find(">ms per step, all layers (Fprop + Dgrad + Wgrad)</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, ">dense 7.875</text>"), 2u);
  EXPECT_EQ(count_of(svg, ">MoE 14.125</text>"), 2u);
  EXPECT_NE(svg.find(">dense 5.906</text>"), std::string::npos);
  EXPECT_NE(svg.find(">MoE 9.344</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, ">842.875 ms</text>"), 2u);
  EXPECT_NE(svg.find(">1.51x</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, ">n/a</text>"), 1u);
  for (const char* legend : {">expert_down Wgrad</text>", ">shared_up Fprop + Dgrad</text>",
                             ">q_a Fprop + Dgrad</text>", ">kv_b Wgrad</text>"}) {
    EXPECT_NE(svg.find(legend), std::string::npos) << legend;
  }
  EXPECT_EQ(svg.find(">qkv Wgrad</text>"), std::string::npos) << "only the run's ops";
}

TEST(SvgChart, ShapesRunHasNoChart) {
  EXPECT_THROW(render_svg_chart(report_of({"shapes_gb18_ns.json"})), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope::report
