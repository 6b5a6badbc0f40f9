#include "tools/report/csv_format.h"

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

class CsvWriter {
 public:
  CsvWriter() { out_ = "mode,quantity,pass,op,M,K,N,precision,value,note\n"; }

  void add(Mode mode, const std::string& quantity, const std::string& pass, const std::string& op,
           const std::optional<GemmShape>& shape, const std::vector<Precision>& precisions,
           const std::map<Precision, ReportValue>& values) {
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
          value.available() ? (value.emulated ? "emulated" : "") : value.na_reason};
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

void add_model(const ModelReport& model, CsvWriter& csv) {
  for (const ModelModeReport& mode : model.modes) {
    const auto& p = mode.precisions;
    for (Pass pass : kPasses) {
      const std::string pass_text(pass_name(pass));
      for (std::string_view op_name : kModelOps) {
        const std::string op(op_name);
        csv.add(mode.mode, "op_ms", pass_text, op, mode.op_shapes.at(pass).at(op), p,
                mode.per_op_ms.at(pass).at(op));
      }
    }
    for (Pass pass : kPasses) {
      csv.add(mode.mode, "pass_ms", std::string(pass_name(pass)), "", std::nullopt, p,
              mode.per_pass_ms.at(pass));
    }
    csv.add(mode.mode, "pass_ms", "Fprop + Dgrad", "", std::nullopt, p, mode.fprop_dgrad_ms);
    csv.add(mode.mode, "layer_ms", "", "", std::nullopt, p, mode.per_layer_ms);
    csv.add(mode.mode, "model_ms", "", "", std::nullopt, p, mode.model_ms);
    csv.add(mode.mode, "speedup_vs_bf16", "", "", std::nullopt, p, mode.speedup_vs_bf16);
  }
}

void add_shapes(const ShapesReport& shapes, CsvWriter& csv) {
  for (const ShapesModeReport& mode : shapes.modes) {
    for (const ShapesRow& row : mode.rows) {
      const std::string pass(pass_name(row.pass));
      csv.add(mode.mode, "gemm_ms", pass, row.op, row.shape, mode.precisions, row.ms);
      csv.add(mode.mode, "gemm_tflops", pass, row.op, row.shape, mode.precisions, row.tflops);
      csv.add(mode.mode, "gemm_speedup_vs_bf16", pass, row.op, row.shape, mode.precisions,
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
