#include "tools/report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "tools/report/number_format.h"
#include "tools/report/table.h"

namespace gemmscope::report {
namespace {

// Geometry, in SVG user units (pixels at 100% zoom).
constexpr double kMarginLeft = 90;
constexpr double kTitleHeight = 96;
constexpr double kPlotHeight = 380;
constexpr double kBarLabelRoom = 36;   // above the tallest bar, for its speedup and time
constexpr double kKindLabelRoom = 13;  // and one line more for each layer kind's total
constexpr double kBottomRoom = 64;     // precision names and mode names under the axis
constexpr double kBarWidth = 54;
constexpr double kBarGap = 22;
constexpr double kGroupGap = 56;
constexpr double kLegendWidth = 270;
constexpr double kMinWidth = 900;
constexpr double kConfigCharWidth = 6.2;  // of the 11-unit model_config text, on average

// Per op of kLayerOps, the colour of its Fprop + Dgrad segment (dark) and of its Wgrad segment
// (light). qkv and q_a share blue: a model has qkv or MLA's projections, never both.
struct OpColors {
  const char* fprop_dgrad;
  const char* wgrad;
};
constexpr std::array<OpColors, 12> kOpColors = {{{"#1f77b4", "#aec7e8"},    // qkv
                                                 {"#1f77b4", "#aec7e8"},    // q_a
                                                 {"#9467bd", "#c5b0d5"},    // q_b
                                                 {"#8c564b", "#c49c94"},    // kv_a
                                                 {"#e377c2", "#f7b6d2"},    // kv_b
                                                 {"#ff7f0e", "#ffbb78"},    // attn_out
                                                 {"#2ca02c", "#98df8a"},    // mlp_up
                                                 {"#d62728", "#ff9896"},    // mlp_down
                                                 {"#7f7f7f", "#c7c7c7"},    // shared_up
                                                 {"#bcbd22", "#dbdb8d"},    // shared_down
                                                 {"#17becf", "#9edae5"},    // expert_up
                                                 {"#393b79", "#9c9ede"}}};  // expert_down
static_assert(kOpColors.size() == kLayerOps.size(), "one colour pair per model op");

const OpColors& colors_of(const std::string& op) {
  const auto index = std::find(kLayerOps.begin(), kLayerOps.end(), op) - kLayerOps.begin();
  return kOpColors.at(static_cast<size_t>(index));
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double value) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.1f", value);
  return buffer.data();
}

struct Segment {
  std::string label;  // "qkv Fprop + Dgrad"
  const char* color;
  double ms;
};

struct Bar {
  Mode mode;
  Precision precision;
  std::vector<Segment> segments;  // bottom to top; empty when the bar's total is n/a
  ReportValue total;
  ReportValue speedup;
  // A model whose layers differ in kind: one layer of each kind, e.g. ("dense", 5.906 ms).
  std::vector<std::pair<std::string, ReportValue>> kind_totals;
  // Of the total, what quantizing costs: the bar less the same GEMMs without it (the prequant
  // bar of the precision whose GEMMs these are), in a mode that quantizes in its timed work;
  // absent where either is unknown.
  std::optional<double> quantization_ms;
  Precision gemms_of = Precision::kBF16;  // whose prequant bar quantization_ms is taken against
};

// The precision whose prequant GEMMs are `precision`'s GEMMs: its own, except FP8Delayed's,
// whose operands once quantized are FP8Current's (it has no prequant cases of its own).
Precision gemm_precision(Precision precision) {
  return precision == Precision::kFP8Delayed ? Precision::kFP8Current : precision;
}

// Sets each step and autocast bar's quantization share from the prequant bar of its GEMMs.
void add_quantization_shares(std::vector<Bar>& bars) {
  for (Bar& bar : bars) {
    if ((bar.mode != Mode::kStep && bar.mode != Mode::kAutocast) || !bar.total.available() ||
        bar.total.emulated)
      continue;
    bar.gemms_of = gemm_precision(bar.precision);
    for (const Bar& gemms : bars) {
      if (gemms.mode == Mode::kPrequant && gemms.precision == bar.gemms_of &&
          gemms.total.available()) {
        // Noise can make a quantizing bar a hair shorter than its GEMMs alone: no share then.
        bar.quantization_ms = std::max(0.0, *bar.total.number - *gemms.total.number);
      }
    }
  }
}

// A model whose ops all have one layer count: bars of one layer. One whose layers differ in
// kind has no one layer: bars of the whole model, each op's segments times its layers.
std::vector<Bar> collect_bars(const ModelReport& model) {
  const OpLayers& layers = model.op_layers;
  std::vector<Bar> bars;
  for (const ModelModeReport& mode : model.modes) {
    for (Precision precision : mode.precisions) {
      Bar bar{mode.mode,
              precision,
              {},
              layers.mixed ? mode.model_ms.at(precision) : mode.per_layer_ms.at(precision),
              mode.speedup_vs_bf16.at(precision),
              {},
              std::nullopt,
              precision};
      for (const auto& [kind, values] : mode.per_kind_ms) {
        bar.kind_totals.push_back({std::string(layer_kind_name(kind)), values.at(precision)});
      }
      if (bar.total.available()) {
        for (const std::string& op : layers.ops) {
          const double times = layers.mixed ? static_cast<double>(layers.per_op.at(op)) : 1;
          const std::string suffix =
              layers.mixed ? " × " + std::to_string(layers.per_op.at(op)) + " layers" : "";
          auto ms = [&](Pass pass) { return *mode.per_op_ms.at(pass).at(op).at(precision).number; };
          bar.segments.push_back({op + " Fprop + Dgrad" + suffix, colors_of(op).fprop_dgrad,
                                  (ms(Pass::kFprop) + ms(Pass::kDgrad)) * times});
          bar.segments.push_back(
              {op + " Wgrad" + suffix, colors_of(op).wgrad, ms(Pass::kWgrad) * times});
        }
      }
      bars.push_back(std::move(bar));
    }
  }
  add_quantization_shares(bars);
  return bars;
}

// A tick step of 1, 2, 2.5 or 5 times a power of ten giving at most 6 intervals up to `top`.
double tick_step(double top) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(top / 6)));
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (top / (factor * magnitude) <= 6)
      return factor * magnitude;
  }
  return 10 * magnitude;
}

std::string tick_label(double value, double step) {
  int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  if (std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) >
      1e-6) {
    ++decimals;  // 2.5 x 10^k needs one digit more
  }
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return buffer.data();
}

// Splits a long line at spaces so that each piece has at most `width` characters.
std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty())
    lines.push_back(line);
  return lines;
}

std::string speedup_text(const ReportValue& speedup) {
  if (speedup.available())
    return format_speedup(*speedup.number) + (speedup.emulated ? "*" : "");
  return speedup.na_reason == kEmulatedReason ? "emulated" : "n/a";
}

class SvgWriter {
 public:
  void text(double x, double y, const std::string& content, const std::string& attributes) {
    out_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" " << attributes << ">"
         << xml_escape(content) << "</text>\n";
  }
  void line(double x1, double y1, double x2, double y2, const std::string& attributes) {
    out_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\""
         << num(y2) << "\" " << attributes << "/>\n";
  }
  void rect(double x, double y, double w, double h, const std::string& attributes,
            const std::string& tooltip = "") {
    out_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
         << "\" height=\"" << num(h) << "\" " << attributes;
    if (tooltip.empty()) {
      out_ << "/>\n";
    } else {
      out_ << "><title>" << xml_escape(tooltip) << "</title></rect>\n";
    }
  }
  void raw(const std::string& markup) { out_ << markup; }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

}  // namespace

std::string render_svg_chart(const Report& report) {
  if (!report.model) {
    throw std::invalid_argument(
        "the chart needs a model run (ops qkv, attn_out, mlp_up, mlp_down, ...); the input has "
        "only --shapes GEMMs");
  }
  const ModelReport& model = *report.model;
  const OpLayers& op_layers = model.op_layers;
  const RunContext& context = report.input.context;
  const std::vector<Bar> bars = collect_bars(model);

  double tallest = 0;
  for (const Bar& bar : bars) {
    if (bar.total.available())
      tallest = std::max(tallest, *bar.total.number);
  }
  const double step = tick_step(tallest > 0 ? tallest : 1);
  const double axis_top = std::ceil((tallest > 0 ? tallest : 1) / step - 1e-9) * step;

  const std::vector<std::string> config_lines =
      wrap(context.find("model_config").value_or(""), 140);
  // A longer model_config (mixture-of-experts models have more fields) pushes the plot down.
  const double title_height =
      std::max(kTitleHeight, 68 + 14 * static_cast<double>(config_lines.size()));
  const double label_room =
      kBarLabelRoom +
      kKindLabelRoom * static_cast<double>(op_layers.mixed ? op_layers.kinds.size() : 0);
  const double plot_width = static_cast<double>(bars.size()) * (kBarWidth + kBarGap) +
                            static_cast<double>(model.modes.size() - 1) * kGroupGap;
  size_t longest_config_line = 0;
  for (const std::string& line : config_lines)
    longest_config_line = std::max(longest_config_line, display_width(line));
  const double width =
      std::max({kMinWidth, kMarginLeft + plot_width + 30 + kLegendWidth,
                kMarginLeft + kConfigCharWidth * static_cast<double>(longest_config_line) + 10});
  const double plot_top = title_height + label_room;
  const double plot_bottom = plot_top + kPlotHeight;
  auto y_of = [&](double ms) { return plot_bottom - ms / axis_top * kPlotHeight; };

  // Legend, first, so that the chart is tall enough for it: one swatch per segment kind, then
  // how to read the labels.
  SvgWriter legend;
  const double legend_x = kMarginLeft + plot_width + 30;
  double legend_y = plot_top;
  legend.text(legend_x, legend_y, "Segments, as stacked",
              "font-size=\"13\" font-weight=\"bold\" fill=\"#222\"");
  legend_y += 10;
  // Listed top segment first, so that the legend reads like the bars.
  for (auto op = op_layers.ops.rbegin(); op != op_layers.ops.rend(); ++op) {
    for (const auto& [color, label] :
         {std::pair{colors_of(*op).wgrad, *op + " Wgrad"},
          std::pair{colors_of(*op).fprop_dgrad, *op + " Fprop + Dgrad"}}) {
      legend.rect(legend_x, legend_y, 14, 14, "fill=\"" + std::string(color) + "\"");
      legend.text(legend_x + 20, legend_y + 11, label, "font-size=\"12\" fill=\"#222\"");
      legend_y += 20;
    }
  }
  const bool any_share = std::any_of(
      bars.begin(), bars.end(), [](const Bar& bar) { return bar.quantization_ms.has_value(); });
  if (any_share) {
    // The stripes over a grey swatch, as they lie over a segment's colour in a bar.
    legend.rect(legend_x, legend_y, 14, 14, "fill=\"#888\"");
    legend.rect(legend_x, legend_y, 14, 14,
                "fill=\"url(#quantization)\" stroke=\"#333\" stroke-width=\"0.5\"");
    legend.text(legend_x + 20, legend_y + 11, "of which quantization",
                "font-size=\"12\" fill=\"#222\"");
    legend_y += 20;
  }
  legend_y += 10;
  std::vector<std::string> reading =
      op_layers.mixed
          ? std::vector<std::string>{"Segments: an op's time x its layers.",
                                     "Above each bar: one layer of each kind,",
                                     "the speedup over BF16 on the model", "total, and that total.",
                                     "BF16 (native) is the baseline of every mode."}
          : std::vector<std::string>{"Above each bar: speedup over BF16",
                                     "on the per-layer total, and that total.",
                                     "BF16 (native) is the baseline of every mode."};
  if (any_share) {
    for (const char* line : {"Hatched, at the top of a step or", "autocast bar: its quantization,",
                             "the bar less the same GEMMs", "prequant (FP8Delayed: FP8Current's)."})
      reading.push_back(line);
  }
  const bool any_emulated =
      std::any_of(bars.begin(), bars.end(), [](const Bar& bar) { return bar.total.emulated; });
  if (any_emulated) {
    reading.push_back("Faded, dashed bars: emulated GEMMs");
    reading.push_back(report.options.include_emulated ? "(not hardware speed; * = counted)."
                                                      : "(not hardware speed; no speedup).");
  }
  // Why a bar or a speedup is missing, each reason once.
  std::vector<std::string> missing;
  auto note_once = [&missing](const std::string& line) {
    if (std::find(missing.begin(), missing.end(), line) == missing.end())
      missing.push_back(line);
  };
  for (const Bar& bar : bars) {
    if (!bar.total.available()) {
      note_once(bar.total.na_reason == kIncompleteReason
                    ? "No bar: a case of the layer was skipped, failed or is missing (the text "
                      "report says which)."
                    : "No bar: " + bar.total.na_reason + ".");
    } else if (!bar.speedup.available() && bar.speedup.na_reason != kEmulatedReason) {
      note_once("Speedup n/a: " + bar.speedup.na_reason + ".");
    }
  }
  for (const std::string& note : missing) {
    for (const std::string& piece : wrap(note, 44))
      reading.push_back(piece);
  }
  for (const std::string& line : reading) {
    legend.text(legend_x, legend_y + 12, line, "font-size=\"11\" fill=\"#555\"");
    legend_y += 15;
  }
  const double height = std::max(plot_bottom + kBottomRoom, legend_y + 20);

  SvgWriter svg;
  svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
          num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
          "\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n");
  svg.rect(0, 0, width, height, "fill=\"#ffffff\"");
  // Diagonal white stripes over the segments' colours: the quantization share of a bar.
  svg.raw(
      "<defs><pattern id=\"quantization\" width=\"6\" height=\"6\" "
      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"3\" "
      "height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.75\"/></pattern></defs>\n");

  // Title: what, on which GPU, for which model.
  svg.text(kMarginLeft, 30,
           std::string(op_layers.mixed ? "GEMM time of one training step, all layers"
                                       : "Per-layer GEMM time of one training step") +
               " · " + context.find("device_name").value_or("unknown device"),
           "font-size=\"19\" font-weight=\"bold\" fill=\"#222\"");
  const LayerCount layers = layer_count(context);
  const std::optional<std::string> kinds = layer_kinds_text(op_layers);
  svg.text(kMarginLeft, 52,
           context.value_or_unknown("model") + " · " + context.value_or_unknown("tokens") +
               " tokens per step · " +
               (layers.layers ? std::to_string(*layers.layers) : std::string("unknown")) +
               " layers" + (kinds ? " (" + *kinds + ")" : "") + " · cuBLASLt " +
               context.value_or_unknown("cublaslt_version"),
           "font-size=\"13\" fill=\"#333\"");
  double subtitle_y = 70;
  for (const std::string& piece : config_lines) {
    svg.text(kMarginLeft, subtitle_y, piece, "font-size=\"11\" fill=\"#666\"");
    subtitle_y += 14;
  }

  // Y axis with ms gridlines.
  for (double tick = 0; tick <= axis_top + step / 2; tick += step) {
    const double y = y_of(tick);
    svg.line(
        kMarginLeft, y, kMarginLeft + plot_width, y,
        tick == 0 ? "stroke=\"#333\" stroke-width=\"1\"" : "stroke=\"#ddd\" stroke-width=\"1\"");
    svg.text(kMarginLeft - 8, y + 4, tick_label(tick, step),
             "font-size=\"12\" text-anchor=\"end\" fill=\"#333\"");
  }
  svg.line(kMarginLeft, plot_top, kMarginLeft, plot_bottom, "stroke=\"#333\" stroke-width=\"1\"");
  const double axis_label_y = (plot_top + plot_bottom) / 2;
  svg.text(30, axis_label_y,
           op_layers.mixed ? "ms per step, all layers (Fprop + Dgrad + Wgrad)"
                           : "ms per layer (Fprop + Dgrad + Wgrad)",
           "font-size=\"13\" text-anchor=\"middle\" fill=\"#333\" transform=\"rotate(-90 30 " +
               num(axis_label_y) + ")\"");

  // Bars, grouped by mode.
  double x = kMarginLeft + kBarGap / 2;
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    const double center = x + kBarWidth / 2;
    const std::string name(precision_name(bar.precision));
    if (bar.segments.empty()) {
      svg.text(center, plot_bottom - 8, "n/a",
               "font-size=\"12\" text-anchor=\"middle\" fill=\"#999\"");
    } else {
      const bool emulated = bar.total.emulated;
      const std::string style = emulated ? " fill-opacity=\"0.45\"" : "";
      double base = 0;
      for (const Segment& segment : bar.segments) {
        const double top = base + segment.ms;
        svg.rect(x, y_of(top), kBarWidth, y_of(base) - y_of(top),
                 "fill=\"" + std::string(segment.color) + "\"" + style,
                 name + " " + segment.label + ": " + format_ms(segment.ms) + " ms");
        base = top;
      }
      if (emulated) {
        svg.rect(x, y_of(base), kBarWidth, y_of(0) - y_of(base),
                 "fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\"");
      }
      if (bar.quantization_ms && *bar.quantization_ms > 0) {
        const double share = *bar.quantization_ms / base;
        svg.rect(x, y_of(base), kBarWidth, y_of(base - *bar.quantization_ms) - y_of(base),
                 "fill=\"url(#quantization)\" stroke=\"#333\" stroke-width=\"0.5\"",
                 name + " " + std::string(mode_name(bar.mode)) + ": quantization " +
                     format_ms(*bar.quantization_ms) + " ms (" + num(100 * share) + "%) of " +
                     format_ms(base) + " ms, against " + std::string(precision_name(bar.gemms_of)) +
                     " prequant");
      }
      // One layer of each kind above the speedup, the last kind nearest to it.
      for (size_t k = 0; k < bar.kind_totals.size(); ++k) {
        const auto& [kind, total] = bar.kind_totals[k];
        const double lines_above_speedup = static_cast<double>(bar.kind_totals.size() - k);
        svg.text(center, y_of(base) - 21 - kKindLabelRoom * lines_above_speedup,
                 kind + " " + (total.available() ? format_ms(*total.number) : "n/a"),
                 "font-size=\"10\" text-anchor=\"middle\" fill=\"#555\"");
      }
      svg.text(center, y_of(base) - 20, speedup_text(bar.speedup),
               "font-size=\"13\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\"");
      svg.text(center, y_of(base) - 6, format_ms(base) + " ms",
               "font-size=\"10\" text-anchor=\"middle\" fill=\"#555\"");
    }
    svg.text(center, plot_bottom + 17, name,
             "font-size=\"12\" text-anchor=\"middle\" fill=\"#222\"");

    const bool last_of_group = i + 1 == bars.size() || bars[i + 1].mode != bar.mode;
    if (last_of_group) {
      // Mode name centred under its group, with a bracket spanning the group's bars.
      double group_left = x;
      for (size_t j = i; j-- > 0 && bars[j].mode == bar.mode;)
        group_left -= kBarWidth + kBarGap;
      const double group_right = x + kBarWidth;
      svg.line(group_left, plot_bottom + 27, group_right, plot_bottom + 27,
               "stroke=\"#888\" stroke-width=\"1\"");
      svg.text((group_left + group_right) / 2, plot_bottom + 45, std::string(mode_name(bar.mode)),
               "font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222\"");
      x += kGroupGap;
    }
    x += kBarWidth + kBarGap;
  }

  svg.raw(legend.str());
  svg.raw("</svg>\n");
  return svg.str();
}

}  // namespace gemmscope::report
