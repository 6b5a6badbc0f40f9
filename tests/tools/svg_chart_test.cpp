#include "tools/report/svg_chart.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "report_fixtures.h"
#include "tools/report/number_format.h"
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
  // has a Fprop + Dgrad and a Wgrad segment per op, each with a tooltip; FP8Current's and
  // FP8Delayed's autocast bars one more, their quantization share (MXFP8's is emulated).
  EXPECT_EQ(count_of(svg, "<title>"), 7u * 8u + 2u);
  EXPECT_EQ(count_of(svg, "<title>FP8Current qkv Fprop + Dgrad: "), 2u);
  EXPECT_NE(svg.find("<title>FP8Delayed mlp_down Wgrad: 1.688 ms</title>"), std::string::npos);
}

// The top of a quantizing mode's bar is hatched for its quantization: the bar less its GEMMs
// alone, the same precision's prequant bar (FP8Delayed's GEMMs are FP8Current's).
TEST(SvgChart, HatchesEachQuantizingBarsShareAgainstItsGemmsAlone) {
  const Report report = report_of({"model_gb17_ns.json"});
  const std::string svg = render_svg_chart(report);
  EXPECT_EQ(xml_well_formedness_error(svg), "");
  const ModelReport& model = *report.model;
  const auto per_layer = [&](Mode mode, Precision precision) {
    for (const ModelModeReport& m : model.modes) {
      if (m.mode == mode)
        return *m.per_layer_ms.at(precision).number;
    }
    throw std::logic_error("no such mode");
  };
  const double gemms = per_layer(Mode::kPrequant, Precision::kFP8Current);
  for (const Precision precision : {Precision::kFP8Current, Precision::kFP8Delayed}) {
    const double total = per_layer(Mode::kAutocast, precision);
    const std::string tooltip = "<title>" + std::string(precision_name(precision)) +
                                " autocast: quantization " + format_ms(total - gemms) + " ms (";
    const size_t at = svg.find(tooltip);
    ASSERT_NE(at, std::string::npos) << tooltip;
    const std::string of_total = "%) of " + format_ms(total) + " ms, against FP8Current prequant";
    EXPECT_EQ(svg.find(of_total, at), svg.find("%) of ", at)) << of_total;
  }
  EXPECT_EQ(count_of(svg, "fill=\"url(#quantization)\""), 2u + 1u);  // two bars, the legend
  EXPECT_NE(svg.find(">of which quantization</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<pattern id=\"quantization\""), 1u);
}

TEST(SvgChart, LabelsBarsWithSpeedupAndTotalAndHasTitleAxisAndLegend) {
  const std::string svg = render_svg_chart(report_of({"model_gb17_ns.json"}));
  EXPECT_NE(svg.find(">Per-layer GEMM time of one training step · NVIDIA H200</text>"),
            std::string::npos);
  EXPECT_NE(svg.find(">test-tiny · 2048 tokens per step · 4 layers · cuBLASLt 13.1.0</text>"),
            std::string::npos);
  EXPECT_EQ(count_of(svg, ">1.00x</text>"), 2u);  // BF16 in both modes of this file
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
