#include "tools/report/csv_format.h"

#include <map>
#include <optional>
#include <vector>

#include "tools/report/number_format.h"

namespace gemmscope::report {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string optional_count(std::optional<int64_t> count) {
  return count ? std::to_string(*count) : "";
}

// What a row says besides its values: the GEMM's size and groups, and its layer count.
struct RowFacts {
  std::optional<GemmShape> shape;
  std::optional<int64_t> groups;
  std::optional<int64_t> layers;
};

class CsvWriter {
 public:
  CsvWriter() {
    out_ = "mode,quantity,pass,op,M,K,N,precision,value,note,G,layers,implementation\n";
  }

  void add(Mode mode, const std::string& quantity, const std::string& pass, const std::string& op,
           const RowFacts& facts, const std::vector<Precision>& precisions,
           const std::map<Precision, ReportValue>& values) {
    const std::optional<GemmShape>& shape = facts.shape;
    for (Precision precision : precisions) {
      const ReportValue& value = values.at(precision);
      const std::vector<std::string> fields = {
          std::string(mode_name(mode)),
          quantity,
          pass,
          op,
          shape ? std::to_string(shape->m) : "",
          shape ? std::to_string(shape->k) : "",
          shape ? std::to_string(shape->n) : "",
          std::string(precision_name(precision)),
          value.available() ? format_exact(*value.number) : "",
          value.available() ? (value.emulated ? "emulated" : "") : value.na_reason,
          optional_count(facts.groups),
          optional_count(facts.layers),
          implementations_text(value.implementations)};
      for (size_t i = 0; i < fields.size(); ++i) {
        out_ += (i > 0 ? "," : "") + csv_field(fields[i]);
      }
      out_ += "\n";
    }
  }

  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

template <typename Key>
std::optional<int64_t> known(const std::map<Key, int64_t>& counts, const Key& key) {
  const auto found = counts.find(key);
  return found == counts.end() ? std::nullopt : std::optional<int64_t>(found->second);
}

void add_model(const ModelReport& model, CsvWriter& csv) {
  const OpLayers& layers = model.op_layers;
  for (const ModelModeReport& mode : model.modes) {
    const auto& p = mode.precisions;
    for (Pass pass : kPasses) {
      const std::string pass_text(pass_name(pass));
      for (const std::string& op : layers.ops) {
        const RowFacts facts{mode.op_shapes.at(pass).at(op), mode.op_groups.at(pass).at(op),
                             known(layers.per_op, op)};
        csv.add(mode.mode, "op_ms", pass_text, op, facts, p, mode.per_op_ms.at(pass).at(op));
      }
    }
    for (Pass pass : kPasses) {
      csv.add(mode.mode, "pass_ms", std::string(pass_name(pass)), "", {}, p,
              mode.per_pass_ms.at(pass));
    }
    csv.add(mode.mode, "pass_ms", "Fprop + Dgrad", "", {}, p, mode.fprop_dgrad_ms);
    csv.add(mode.mode, "layer_ms", "", "", {}, p, mode.per_layer_ms);
    csv.add(mode.mode, "model_ms", "", "", {}, p, mode.model_ms);
    csv.add(mode.mode, "speedup_vs_bf16", "", "", {}, p, mode.speedup_vs_bf16);
    for (Pass pass : kPasses) {
      csv.add(mode.mode, "model_pass_ms", std::string(pass_name(pass)), "", {}, p,
              mode.model_pass_ms.at(pass));
    }
    csv.add(mode.mode, "model_pass_ms", "Fprop + Dgrad", "", {}, p, mode.model_fprop_dgrad_ms);
    for (const auto& [kind, values] : mode.per_kind_ms) {
      const RowFacts facts{std::nullopt, std::nullopt, known(layers.layers_of_kind, kind)};
      csv.add(mode.mode, std::string(layer_kind_token(kind)) + "_layer_ms", "", "", facts, p,
              values);
    }
  }
}

void add_shapes(const ShapesReport& shapes, CsvWriter& csv) {
  for (const ShapesModeReport& mode : shapes.modes) {
    for (const ShapesRow& row : mode.rows) {
      const std::string pass(pass_name(row.pass));
      const RowFacts facts{row.shape, std::nullopt, std::nullopt};
      csv.add(mode.mode, "gemm_ms", pass, row.op, facts, mode.precisions, row.ms);
      csv.add(mode.mode, "gemm_tflops", pass, row.op, facts, mode.precisions, row.tflops);
      csv.add(mode.mode, "gemm_speedup_vs_bf16", pass, row.op, facts, mode.precisions,
              row.speedup_vs_bf16);
    }
  }
}

}  // namespace

std::string format_csv(const Report& report) {
  CsvWriter csv;
  if (report.model)
    add_model(*report.model, csv);
  if (report.shapes)
    add_shapes(*report.shapes, csv);
  return csv.text();
}

}  // namespace gemmscope::report
