#include "tools/report/report_document.h"

#include <algorithm>

#include "tools/report/number_format.h"

namespace gemmscope::report {
namespace {

using Format = std::string (*)(double);

// Writes cells, numbering each distinct n/a reason once and remembering emulated marks.
class CellWriter {
 public:
  std::string operator()(const ReportValue& value, Format format) {
    if (value.available()) {
      emulated_seen_ = emulated_seen_ || value.emulated;
      return format(*value.number) + (value.emulated ? "*" : "");
    }
    auto known = std::find(reasons_.begin(), reasons_.end(), value.na_reason);
    if (known == reasons_.end())
      known = reasons_.insert(reasons_.end(), value.na_reason);
    return "n/a[" + std::to_string(known - reasons_.begin() + 1) + "]";
  }

  std::vector<std::pair<std::string, std::string>> notes(bool include_emulated) const {
    std::vector<std::pair<std::string, std::string>> notes;
    if (emulated_seen_) {
      notes.push_back({"*", std::string("includes an emulated GEMM (MXFP8/NVFP4 on a GPU without "
                                        "their tensor cores): not the hardware's speed; ") +
                                (include_emulated ? "counted in speedups (--include-emulated)"
                                                  : "left out of speedups")});
    }
    for (size_t i = 0; i < reasons_.size(); ++i) {
      notes.push_back({"[" + std::to_string(i + 1) + "]", "n/a: " + reasons_[i]});
    }
    return notes;
  }

 private:
  std::vector<std::string> reasons_;
  bool emulated_seen_ = false;
};

DocumentBlock title(std::string text) {
  DocumentBlock block;
  block.kind = DocumentBlock::Kind::kTitle;
  block.text = std::move(text);
  return block;
}

DocumentBlock section(std::string text) {
  DocumentBlock block;
  block.kind = DocumentBlock::Kind::kSection;
  block.text = std::move(text);
  return block;
}

DocumentBlock paragraph(std::string text) {
  DocumentBlock block;
  block.kind = DocumentBlock::Kind::kParagraph;
  block.text = std::move(text);
  return block;
}

DocumentBlock list(std::vector<std::pair<std::string, std::string>> items) {
  DocumentBlock block;
  block.kind = DocumentBlock::Kind::kList;
  block.items = std::move(items);
  return block;
}

DocumentBlock table_block(Table table) {
  DocumentBlock block;
  block.kind = DocumentBlock::Kind::kTable;
  block.table = std::move(table);
  return block;
}

// "a (b, c)" from the parts that are known; `details` entries with an empty value are left out.
std::string with_details(
    const std::string& head,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& details) {
  std::string joined;
  for (const auto& [prefix, value] : details) {
    if (!value)
      continue;
    joined += (joined.empty() ? "" : ", ") + prefix + *value;
  }
  return joined.empty() ? head : head + " (" + joined + ")";
}

std::vector<std::pair<std::string, std::string>> run_facts(const Report& report) {
  const RunContext& context = report.input.context;
  auto with_unit = [&](const char* key, const char* unit) -> std::optional<std::string> {
    const auto value = context.find(key);
    return value ? std::optional<std::string>(*value + unit) : std::nullopt;
  };
  std::vector<std::pair<std::string, std::string>> facts;
  facts.push_back(
      {"Device:", with_details(context.value_or_unknown("device_name"),
                               {{"compute capability ", context.find("compute_capability")},
                                {"", with_unit("sm_count", " SMs")},
                                {"SM clock ", with_unit("sm_clock_mhz", " MHz")},
                                {"memory clock ", with_unit("memory_clock_mhz", " MHz")}})});
  facts.push_back({"Software:", "driver " + context.value_or_unknown("driver_version") +
                                    ", CUDA runtime " +
                                    context.value_or_unknown("cuda_runtime_version") +
                                    ", cuBLASLt " + context.value_or_unknown("cublaslt_version")});
  if (report.model) {
    facts.push_back({"Model:", with_details(context.value_or_unknown("model"),
                                            {{"", context.find("model_config")}})});
    const LayerCount layers = layer_count(context);
    facts.push_back({"Layers:", layers.layers ? std::to_string(*layers.layers)
                                              : "unknown (" + layers.na_reason + ")"});
    facts.push_back({"Tokens:", context.value_or_unknown("tokens") + " per step"});
  }
  if (const auto shapes = context.find("shapes"))
    facts.push_back({"Shapes:", *shapes});
  facts.push_back({"Timing:", "L2 flush " + context.value_or_unknown("l2_flush") + ", autotune " +
                                  context.value_or_unknown("autotune")});
  std::string files;
  for (const std::string& file : report.input.files)
    files += (files.empty() ? "" : ", ") + file;
  std::string cases = std::to_string(report.input.cases.size()) + " GEMM cases";
  if (report.input.quantize_cases > 0) {
    cases += "; " + std::to_string(report.input.quantize_cases) +
             " quantization cases ignored (the report covers GEMMs)";
  }
  facts.push_back({"Input:", files + ": " + cases});
  return facts;
}

// "NVIDIA H200 · llama3-8b · 8192 tokens": who and what a section is about (the parts that
// are known; a --shapes run has no model).
std::string run_summary(const RunContext& context) {
  std::string summary = context.value_or_unknown("device_name");
  if (const auto model = context.find("model"))
    summary += " · " + *model;
  if (const auto tokens = context.find("tokens"))
    summary += " · " + *tokens + " tokens";
  return summary;
}

std::vector<std::string> precision_headers(const std::vector<Precision>& precisions) {
  std::vector<std::string> headers;
  for (Precision precision : precisions)
    headers.emplace_back(precision_name(precision));
  return headers;
}

std::vector<std::string> row_of(std::vector<std::string> labels, const PrecisionValues& values,
                                const std::vector<Precision>& precisions, Format format,
                                CellWriter& cell) {
  for (Precision precision : precisions)
    labels.push_back(cell(values.at(precision), format));
  return labels;
}

void add_model_mode(const ModelModeReport& mode, const ModelReport& model,
                    const RunContext& context, CellWriter& cell, Document& document) {
  document.push_back(section(std::string(mode_name(mode.mode)) + " · " + run_summary(context)));
  document.push_back(paragraph(mode_description(mode.mode)));
  for (Pass pass : kPasses) {
    Table table;
    table.title = std::string(pass_name(pass)) + " (ms)";
    table.header = {"op", "MxKxN"};
    const auto names = precision_headers(mode.precisions);
    table.header.insert(table.header.end(), names.begin(), names.end());
    table.label_columns = 2;
    for (std::string_view op_name : kModelOps) {
      const std::string op(op_name);
      const auto& shape = mode.op_shapes.at(pass).at(op);
      table.rows.push_back(row_of({op, shape ? to_string(*shape) : "?"},
                                  mode.per_op_ms.at(pass).at(op), mode.precisions, format_ms,
                                  cell));
    }
    table.rows.push_back(
        row_of({"sum", ""}, mode.per_pass_ms.at(pass), mode.precisions, format_ms, cell));
    document.push_back(table_block(std::move(table)));
  }
  Table layer;
  layer.title = "Per layer and model (ms), speedup over BF16 on the per-layer total";
  layer.header = {""};
  const auto names = precision_headers(mode.precisions);
  layer.header.insert(layer.header.end(), names.begin(), names.end());
  const auto& p = mode.precisions;
  layer.rows.push_back(row_of({"Fprop"}, mode.per_pass_ms.at(Pass::kFprop), p, format_ms, cell));
  layer.rows.push_back(row_of({"Dgrad"}, mode.per_pass_ms.at(Pass::kDgrad), p, format_ms, cell));
  layer.rows.push_back(row_of({"Fprop + Dgrad"}, mode.fprop_dgrad_ms, p, format_ms, cell));
  layer.rows.push_back(row_of({"Wgrad"}, mode.per_pass_ms.at(Pass::kWgrad), p, format_ms, cell));
  layer.rows.push_back(row_of({"Per layer"}, mode.per_layer_ms, p, format_ms, cell));
  const std::string model_label =
      model.layers.layers ? "Model (" + std::to_string(*model.layers.layers) + " layers)" : "Model";
  layer.rows.push_back(row_of({model_label}, mode.model_ms, p, format_ms, cell));
  layer.rows.push_back(row_of({"Speedup vs BF16"}, mode.speedup_vs_bf16, p, format_speedup, cell));
  document.push_back(table_block(std::move(layer)));
}

void add_shapes_mode(const ShapesModeReport& mode, const RunContext& context, CellWriter& cell,
                     Document& document) {
  document.push_back(section(std::string(mode_name(mode.mode)) + " · --shapes GEMMs · " +
                             context.value_or_unknown("device_name")));
  document.push_back(paragraph(mode_description(mode.mode) +
                               " TFLOP/s = 2·M·K·N / time; speedup = BF16 time / time."));
  Table table;
  table.title = "Per GEMM";
  table.header = {"GEMM", "pass", "MxKxN"};
  table.label_columns = 3;
  for (Precision precision : mode.precisions) {
    const std::string name(precision_name(precision));
    table.header.push_back(name + " ms");
    table.header.push_back(name + " TFLOP/s");
    if (precision != Precision::kBF16)
      table.header.push_back(name + " speedup");
  }
  for (const ShapesRow& row : mode.rows) {
    std::vector<std::string> cells = {row.op, std::string(pass_name(row.pass)),
                                      to_string(row.shape)};
    for (Precision precision : mode.precisions) {
      cells.push_back(cell(row.ms.at(precision), format_ms));
      cells.push_back(cell(row.tflops.at(precision), format_tflops));
      if (precision != Precision::kBF16) {
        cells.push_back(cell(row.speedup_vs_bf16.at(precision), format_speedup));
      }
    }
    table.rows.push_back(std::move(cells));
  }
  document.push_back(table_block(std::move(table)));
}

std::string underline(const std::string& text, char rule) {
  return text + "\n" + std::string(display_width(text), rule) + "\n";
}

}  // namespace

std::string mode_description(Mode mode) {
  switch (mode) {
    case Mode::kAutocast:
      return "autocast: quantizing each GEMM's inputs is inside the timed region; BF16 (native) "
             "is the baseline.";
    case Mode::kPrequant:
      return "prequant: inputs quantized once, outside the timed region; BF16 (native) is the "
             "baseline.";
    case Mode::kNative:
      return "native: BF16 only, the input has no quantized cases.";
  }
  return "";
}

Document build_document(const Report& report) {
  const RunContext& context = report.input.context;
  Document document;
  document.push_back(title("GEMM report: " + run_summary(context)));
  document.push_back(list(run_facts(report)));
  CellWriter cell;
  if (report.model) {
    for (const ModelModeReport& mode : report.model->modes) {
      add_model_mode(mode, *report.model, context, cell, document);
    }
  }
  if (report.shapes) {
    for (const ShapesModeReport& mode : report.shapes->modes) {
      add_shapes_mode(mode, context, cell, document);
    }
  }
  const auto notes = cell.notes(report.options.include_emulated);
  if (!notes.empty()) {
    document.push_back(section("Notes"));
    document.push_back(list(notes));
  }
  return document;
}

std::string render_text(const Document& document) {
  std::string out;
  for (const DocumentBlock& block : document) {
    if (!out.empty())
      out += "\n";
    switch (block.kind) {
      case DocumentBlock::Kind::kTitle:
        out += underline(block.text, '=');
        break;
      case DocumentBlock::Kind::kSection:
        out += underline(block.text, '-');
        break;
      case DocumentBlock::Kind::kParagraph:
        out += block.text + "\n";
        break;
      case DocumentBlock::Kind::kList: {
        size_t width = 0;
        for (const auto& item : block.items)
          width = std::max(width, item.first.size());
        for (const auto& [marker, text] : block.items) {
          out += marker + std::string(width - marker.size() + 1, ' ') + text + "\n";
        }
        break;
      }
      case DocumentBlock::Kind::kTable:
        out += render_text_table(block.table);
        break;
    }
  }
  return out;
}

std::string render_markdown(const Document& document) {
  std::string out;
  for (const DocumentBlock& block : document) {
    if (!out.empty())
      out += "\n";
    switch (block.kind) {
      case DocumentBlock::Kind::kTitle:
        out += "## " + escape_markdown(block.text) + "\n";
        break;
      case DocumentBlock::Kind::kSection:
        out += "### " + escape_markdown(block.text) + "\n";
        break;
      case DocumentBlock::Kind::kParagraph:
        out += escape_markdown(block.text) + "\n";
        break;
      case DocumentBlock::Kind::kList:
        for (const auto& [marker, text] : block.items) {
          out += "- " + escape_markdown(marker) + " " + escape_markdown(text) + "\n";
        }
        break;
      case DocumentBlock::Kind::kTable:
        out += render_markdown_table(block.table);
        break;
    }
  }
  return out;
}

}  // namespace gemmscope::report
