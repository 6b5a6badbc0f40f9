#include "tools/report/json_format.h"

#include <set>

#include <nlohmann/json.hpp>

namespace gemmscope::report {
namespace {

// Ordered, so that precisions, passes and ops keep the report's display order.
using json = nlohmann::ordered_json;

json number_or_null(const ReportValue& value) {
  return value.available() ? json(*value.number) : json(nullptr);
}

json by_precision(const PrecisionValues& values, const std::vector<Precision>& precisions) {
  json object = json::object();
  for (Precision precision : precisions) {
    object[std::string(precision_name(precision))] = number_or_null(values.at(precision));
  }
  return object;
}

// What ran each precision's value: "cutlass" for a case, null where the value is n/a.
json implementation_by_precision(const PrecisionValues& values,
                                 const std::vector<Precision>& precisions) {
  json object = json::object();
  for (Precision precision : precisions) {
    const ReportValue& value = values.at(precision);
    object[std::string(precision_name(precision))] =
        value.available() ? json(implementations_text(value.implementations)) : json(nullptr);
  }
  return object;
}

json optional_string(const RunContext& context, const char* key) {
  const auto value = context.find(key);
  return value ? json(*value) : json(nullptr);
}

json shape_object(const std::optional<GemmShape>& shape, std::optional<int64_t> groups) {
  if (!shape)
    return nullptr;
  json object = {{"M", shape->m}, {"K", shape->k}, {"N", shape->n}};
  if (groups)
    object["G"] = *groups;
  return object;
}

void add_model_mode(const ModelModeReport& mode, const OpLayers& layers, json& out) {
  const auto& p = mode.precisions;
  json per_op = json::object();
  json per_pass = json::object();
  json na_reasons = json::object();
  std::set<std::string> emulated;
  for (Pass pass : kPasses) {
    const std::string pass_text(pass_name(pass));
    for (const std::string& op : layers.ops) {
      const PrecisionValues& values = mode.per_op_ms.at(pass).at(op);
      per_op[pass_text][op] = by_precision(values, p);
      for (Precision precision : p) {
        const ReportValue& value = values.at(precision);
        const std::string name(precision_name(precision));
        if (!value.available())
          na_reasons[name + "/" + pass_text + "/" + op] = value.na_reason;
        if (value.emulated)
          emulated.insert(name);
      }
    }
    per_pass[pass_text] = by_precision(mode.per_pass_ms.at(pass), p);
  }
  out["per_op_ms"] = per_op;
  out["per_pass_ms"] = per_pass;
  out["per_layer_ms"] = by_precision(mode.per_layer_ms, p);
  out["model_ms"] = by_precision(mode.model_ms, p);
  out["speedup_vs_bf16"] = by_precision(mode.speedup_vs_bf16, p);
  out["emulated"] = emulated;
  out["na_reasons"] = na_reasons;

  json shapes = json::object();
  json model_pass = json::object();
  for (Pass pass : kPasses) {
    const std::string pass_text(pass_name(pass));
    shapes[pass_text] = json::object();
    for (const std::string& op : layers.ops) {
      shapes[pass_text][op] =
          shape_object(mode.op_shapes.at(pass).at(op), mode.op_groups.at(pass).at(op));
    }
    model_pass[pass_text] = by_precision(mode.model_pass_ms.at(pass), p);
  }
  out["per_op_shape"] = shapes;
  out["model_pass_ms"] = model_pass;
  out["model_fprop_dgrad_ms"] = by_precision(mode.model_fprop_dgrad_ms, p);
  json per_kind = json::object();
  for (const auto& [kind, values] : mode.per_kind_ms)
    per_kind[std::string(layer_kind_token(kind))] = by_precision(values, p);
  out["per_layer_kind_ms"] = per_kind;
  json implementation = json::object();
  for (Pass pass : kPasses) {
    const std::string pass_text(pass_name(pass));
    for (const std::string& op : layers.ops) {
      implementation[pass_text][op] =
          implementation_by_precision(mode.per_op_ms.at(pass).at(op), p);
    }
  }
  out["per_op_implementation"] = implementation;
}

// The layers per op and per kind; null and {} for a --shapes run, or where they are unknown.
void add_layer_counts(const std::optional<ModelReport>& model, json& out) {
  json per_op = nullptr;
  json per_kind = json::object();
  if (model && !model->op_layers.per_op.empty()) {
    per_op = json::object();
    for (const std::string& op : model->op_layers.ops)
      per_op[op] = model->op_layers.per_op.at(op);
    if (model->op_layers.mixed) {
      for (const auto& [kind, count] : model->op_layers.layers_of_kind)
        per_kind[std::string(layer_kind_token(kind))] = count;
    }
  }
  out["layers_per_op"] = per_op;
  out["layers_per_kind"] = per_kind;
}

json gemm_row(const ShapesRow& row, const std::vector<Precision>& precisions) {
  return {{"op", row.op},
          {"pass", std::string(pass_name(row.pass))},
          {"M", row.shape.m},
          {"K", row.shape.k},
          {"N", row.shape.n},
          {"ms", by_precision(row.ms, precisions)},
          {"tflops", by_precision(row.tflops, precisions)},
          {"speedup_vs_bf16", by_precision(row.speedup_vs_bf16, precisions)},
          {"implementation", implementation_by_precision(row.ms, precisions)}};
}

}  // namespace

std::string format_json(const Report& report) {
  const RunContext& context = report.input.context;
  const LayerCount layers = layer_count(context);
  json out;
  out["device"] = optional_string(context, "device_name");
  out["num_hidden_layers"] = layers.layers ? json(*layers.layers) : json(nullptr);
  out["model"] = optional_string(context, "model");
  out["tokens"] = optional_string(context, "tokens");
  out["files"] = report.input.files;
  out["context"] = context.values();
  out["include_emulated"] = report.options.include_emulated;
  out["quantize_cases_ignored"] = report.input.quantize_cases;
  json unparsed = json::array();
  for (const UnparsedEntry& entry : report.input.unparsed) {
    unparsed.push_back({{"name", entry.name}, {"problem", entry.problem}});
  }
  out["unparsed_entries"] = unparsed;
  out["warnings"] = input_warnings(report.input);

  json modes = json::object();
  if (report.model) {
    for (const ModelModeReport& mode : report.model->modes) {
      add_model_mode(mode, report.model->op_layers, modes[std::string(mode_name(mode.mode))]);
    }
  }
  if (report.shapes) {
    for (const ShapesModeReport& mode : report.shapes->modes) {
      json rows = json::array();
      for (const ShapesRow& row : mode.rows)
        rows.push_back(gemm_row(row, mode.precisions));
      modes[std::string(mode_name(mode.mode))]["per_gemm"] = rows;
    }
  }
  out["modes"] = modes;
  add_layer_counts(report.model, out);
  return out.dump(2) + "\n";
}

}  // namespace gemmscope::report
