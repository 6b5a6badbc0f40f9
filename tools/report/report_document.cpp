#include "tools/report/report_document.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/implementation_summary.h"
#include "tools/report/integer_text.h"
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

std::string layers_fact(const ModelReport& model) {
  const LayerCount& total = model.layers;
  std::string text =
      total.layers ? std::to_string(*total.layers) : "unknown (" + total.na_reason + ")";
  if (const auto kinds = layer_kinds_text(model.op_layers))
    text += " (" + *kinds + ")";
  if (model.op_layers.per_op.empty() && total.layers)
    text += "; layers per op unknown (" + model.op_layers.na_reason + ")";
  return text;
}

// "32 experts (min 192, mean 256.0, max 320 rows)" from the routed rows of each expert.
std::string expert_rows_summary(const std::string& rows) {
  std::vector<int64_t> counts;
  size_t start = 0;
  while (true) {
    const size_t comma = rows.find(',', start);
    const std::optional<int64_t> count =
        parse_non_negative(std::string_view(rows).substr(start, comma - start));
    if (!count)
      return "unreadable (not a comma-separated list of row counts)";
    counts.push_back(*count);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  double total = 0;
  for (int64_t count : counts)
    total += static_cast<double>(count);
  const auto [least, most] = std::minmax_element(counts.begin(), counts.end());
  return std::to_string(counts.size()) + (counts.size() == 1 ? " expert" : " experts") + " (min " +
         std::to_string(*least) + ", mean " +
         format_mean(total / static_cast<double>(counts.size())) + ", max " +
         std::to_string(*most) + " rows)";
}

// How a mixture-of-experts run routed its tokens, in one line; nullopt for a run without experts.
std::optional<std::string> moe_fact(const RunContext& context) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  for (const char* key : {"routing", "expert_parallel", "expert_rank"}) {
    if (const auto value = context.find(key))
      add(std::string(key) + " " + *value);
  }
  if (const auto rows = context.find("expert_rows"))
    add("expert_rows " + expert_rows_summary(*rows));
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// Which implementations gemm_bench could choose from for dense (--provider) and grouped
// (--grouped) GEMMs, in one line; nullopt for a run from before that choice.
std::optional<std::string> gemms_fact(const RunContext& context) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  for (const char* key : {"provider", "grouped"}) {
    if (const auto value = context.find(key))
      add(std::string(key) + " " + *value);
  }
  if (const auto cutlass = context.find("cutlass"))
    add("CUTLASS " + *cutlass);
  if (const auto deepgemm = context.find("deepgemm"))
    add("DeepGEMM " + *deepgemm);
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
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
    facts.push_back({"Layers:", layers_fact(*report.model)});
    facts.push_back({"Tokens:", context.value_or_unknown("tokens") + " per step"});
    if (const auto moe = moe_fact(context))
      facts.push_back({"MoE:", *moe});
  }
  if (const auto shapes = context.find("shapes"))
    facts.push_back({"Shapes:", *shapes});
  if (const auto gemms = gemms_fact(context))
    facts.push_back({"GEMMs:", *gemms});
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

// What the per-op tables of a mixture-of-experts run show beyond a dense one's; empty for a
// dense run.
std::string moe_table_notes(const OpLayers& layers, bool layers_column) {
  std::string notes;
  const bool grouped = std::any_of(layers.ops.begin(), layers.ops.end(),
                                   [](const std::string& op) { return is_grouped_op(op); });
  if (grouped) {
    notes +=
        "G: the groups of a grouped GEMM, the experts of the timed rank that got rows; its M "
        "(Fprop, Dgrad) or K (Wgrad) is all the rows routed to them.";
  }
  if (layers_column) {
    notes += std::string(notes.empty() ? "" : " ") +
             "layers: how many of the model's layers hold the op; sum × layers: the pass over "
             "the whole model.";
  }
  return notes;
}

void add_op_tables(const ModelModeReport& mode, const OpLayers& layers, CellWriter& cell,
                   Document& document) {
  // Op counts are worth a column only where they differ; otherwise "Model (N layers)" says it.
  const bool layers_column = layers.mixed && !layers.per_op.empty();
  if (const std::string notes = moe_table_notes(layers, layers_column); !notes.empty())
    document.push_back(paragraph(notes));
  for (Pass pass : kPasses) {
    Table table;
    table.title = std::string(pass_name(pass)) + " (ms)";
    table.header = {"op", "MxKxN"};
    if (layers_column)
      table.header.push_back("layers");
    const auto names = precision_headers(mode.precisions);
    table.header.insert(table.header.end(), names.begin(), names.end());
    table.label_columns = 2;
    for (const std::string& op : layers.ops) {
      const auto& shape = mode.op_shapes.at(pass).at(op);
      std::vector<std::string> labels = {
          op, shape ? size_text(*shape, mode.op_groups.at(pass).at(op)) : "?"};
      if (layers_column)
        labels.push_back(std::to_string(layers.per_op.at(op)));
      table.rows.push_back(
          row_of(labels, mode.per_op_ms.at(pass).at(op), mode.precisions, format_ms, cell));
    }
    // With layers of two kinds no layer has every op: the sum that means something is the
    // whole model's.
    std::vector<std::string> sum_labels = {layers.mixed ? "sum × layers" : "sum", ""};
    if (layers_column)
      sum_labels.push_back("");
    table.rows.push_back(
        row_of(sum_labels, layers.mixed ? mode.model_pass_ms.at(pass) : mode.per_pass_ms.at(pass),
               mode.precisions, format_ms, cell));
    document.push_back(table_block(std::move(table)));
  }
}

// A table of totals: a label column, then one column per precision.
Table totals_table(std::string title, const std::vector<Precision>& precisions) {
  Table table;
  table.title = std::move(title);
  table.header = {""};
  const auto names = precision_headers(precisions);
  table.header.insert(table.header.end(), names.begin(), names.end());
  return table;
}

// Today's breakdown of one layer, for a model whose ops all have one layer count.
Table one_layer_table(const ModelModeReport& mode, const OpLayers& layers, CellWriter& cell) {
  const auto& p = mode.precisions;
  Table layer =
      totals_table("Per layer and model (ms), speedup over BF16 on the per-layer total", p);
  layer.rows.push_back(row_of({"Fprop"}, mode.per_pass_ms.at(Pass::kFprop), p, format_ms, cell));
  layer.rows.push_back(row_of({"Dgrad"}, mode.per_pass_ms.at(Pass::kDgrad), p, format_ms, cell));
  layer.rows.push_back(row_of({"Fprop + Dgrad"}, mode.fprop_dgrad_ms, p, format_ms, cell));
  layer.rows.push_back(row_of({"Wgrad"}, mode.per_pass_ms.at(Pass::kWgrad), p, format_ms, cell));
  layer.rows.push_back(row_of({"Per layer"}, mode.per_layer_ms, p, format_ms, cell));
  const std::optional<int64_t> count = layers.common();
  const std::string model_label = count ? "Model (" + std::to_string(*count) + " layers)" : "Model";
  layer.rows.push_back(row_of({model_label}, mode.model_ms, p, format_ms, cell));
  layer.rows.push_back(row_of({"Speedup vs BF16"}, mode.speedup_vs_bf16, p, format_speedup, cell));
  return layer;
}

// A model with dense and MoE layers: one layer of each kind, then the whole model by pass.
Table layer_kinds_table(const ModelModeReport& mode, const OpLayers& layers, CellWriter& cell) {
  const auto& p = mode.precisions;
  Table table =
      totals_table("Per layer kind and model (ms), speedup over BF16 on the model total", p);
  for (LayerKind kind : layers.kinds) {
    const char* label = kind == LayerKind::kDense ? "Dense layer (attention + MLP)"
                                                  : "MoE layer (attention + experts)";
    table.rows.push_back(row_of({label}, mode.per_kind_ms.at(kind), p, format_ms, cell));
  }
  table.rows.push_back(
      row_of({"Model Fprop"}, mode.model_pass_ms.at(Pass::kFprop), p, format_ms, cell));
  table.rows.push_back(
      row_of({"Model Dgrad"}, mode.model_pass_ms.at(Pass::kDgrad), p, format_ms, cell));
  table.rows.push_back(
      row_of({"Model Fprop + Dgrad"}, mode.model_fprop_dgrad_ms, p, format_ms, cell));
  table.rows.push_back(
      row_of({"Model Wgrad"}, mode.model_pass_ms.at(Pass::kWgrad), p, format_ms, cell));
  const std::optional<std::string> kinds = layer_kinds_text(layers);
  table.rows.push_back(row_of({kinds ? "Model (" + *kinds + " layers)" : "Model"}, mode.model_ms, p,
                              format_ms, cell));
  table.rows.push_back(row_of({"Speedup vs BF16"}, mode.speedup_vs_bf16, p, format_speedup, cell));
  return table;
}

// The step of torchao's rowwise recipes, where the mode's columns have them: gemm_bench's step
// cases of those precisions cast as torchao's Float8Linear does (bench/pass_quantization.h,
// StepCasts::kAtEachGemm), not into saved copies as the description says of TE's recipes.
std::optional<std::string> step_casts_note(Mode mode, const std::vector<Precision>& precisions) {
  if (mode != Mode::kStep)
    return std::nullopt;
  std::vector<std::string> names;
  for (const Precision precision : precisions) {
    if (precision == Precision::kFP8Rowwise || precision == Precision::kFP8RowwiseBF16Wgrad)
      names.emplace_back(precision_name(precision));
  }
  if (names.empty())
    return std::nullopt;
  std::string joined;
  for (const std::string& name : names)
    joined += (joined.empty() ? "" : " and ") + name;
  return joined +
         (names.size() == 1 ? " is torchao's rowwise recipe" : " are torchao's rowwise recipes") +
         ", whose Float8Linear saves no FP8 copy: each GEMM casts its operands from BF16, every "
         "microbatch, as in autocast.";
}

void add_model_mode(const ModelModeReport& mode, const ModelReport& model,
                    const RunContext& context, CellWriter& cell, Document& document) {
  document.push_back(section(std::string(mode_name(mode.mode)) + " · " + run_summary(context)));
  document.push_back(paragraph(mode_description(mode.mode, context)));
  if (const auto note = step_casts_note(mode.mode, mode.precisions))
    document.push_back(paragraph(*note));
  const OpLayers& layers = model.op_layers;
  add_op_tables(mode, layers, cell, document);
  document.push_back(table_block(layers.mixed ? layer_kinds_table(mode, layers, cell)
                                              : one_layer_table(mode, layers, cell)));
  if (const auto implementations = implementation_summary(mode, layers))
    document.push_back(paragraph(*implementations));
}

void add_shapes_mode(const ShapesModeReport& mode, const RunContext& context, CellWriter& cell,
                     Document& document) {
  document.push_back(section(std::string(mode_name(mode.mode)) + " · --shapes GEMMs · " +
                             context.value_or_unknown("device_name")));
  document.push_back(paragraph(mode_description(mode.mode, context) +
                               " TFLOP/s = 2·M·K·N / time; speedup = BF16 time / time."));
  if (const auto note = step_casts_note(mode.mode, mode.precisions))
    document.push_back(paragraph(*note));
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
  if (const auto implementations = implementation_summary(mode))
    document.push_back(paragraph(*implementations));
}

std::string underline(const std::string& text, char rule) {
  return text + "\n" + std::string(display_width(text), rule) + "\n";
}

}  // namespace

std::string mode_description(Mode mode, const RunContext& context) {
  switch (mode) {
    case Mode::kStep: {
      const std::string microbatches = context.find("microbatches").value_or("1");
      return "step: what a training step pays: each GEMM with the quantization a trainer runs "
             "there (Fprop: X and W into both copies; Dgrad: dY into both; Wgrad: none, it "
             "reads the saved copies), W's once per " +
             (microbatches == "1" ? std::string("step")
                                  : microbatches + " microbatches (--microbatches)") +
             "; BF16 (native) is the baseline.";
    }
    case Mode::kAutocast:
      return "autocast: TransformerEngine's benchmark rule, each GEMM quantizing both of its "
             "inputs inside the timed region, weights every call; BF16 (native) is the "
             "baseline.";
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
