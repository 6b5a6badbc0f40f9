#include "tools/report/op_layers.h"

#include <algorithm>
#include <set>

#include "tools/report/case_name.h"
#include "tools/report/integer_text.h"

namespace gemmscope::report {
namespace {

// The ops of every run made before op_layers existed: one dense transformer layer.
constexpr std::array<std::string_view, 4> kDenseLayerOps = {"qkv", "attn_out", "mlp_up",
                                                            "mlp_down"};

std::vector<std::string> in_layer_order(const std::set<std::string>& ops) {
  std::vector<std::string> ordered;
  for (std::string_view op : kLayerOps) {
    if (ops.count(std::string(op)) > 0)
      ordered.emplace_back(op);
  }
  return ordered;
}

// The run's ops when no op_layers can be read: those with cases, and the whole dense layer of
// an older run (a missing case there must show as missing, as it always has).
std::set<std::string> ops_without_op_layers(const std::vector<std::string>& present) {
  std::set<std::string> ops(present.begin(), present.end());
  const bool older_dense_run = std::all_of(present.begin(), present.end(), [](const auto& op) {
    return std::find(kDenseLayerOps.begin(), kDenseLayerOps.end(), op) != kDenseLayerOps.end();
  });
  if (older_dense_run)
    ops.insert(kDenseLayerOps.begin(), kDenseLayerOps.end());
  return ops;
}

std::vector<LayerKind> kinds_of(const std::vector<std::string>& ops) {
  std::vector<LayerKind> kinds;
  for (LayerKind kind : kLayerKinds) {
    const bool has = std::any_of(ops.begin(), ops.end(), [kind](const std::string& op) {
      return layer_kind_of(op) == kind;
    });
    if (has)
      kinds.push_back(kind);
  }
  return kinds;
}

// Each kind whose ops op_layers gives one count, with that count.
std::map<LayerKind, int64_t> layers_of_kinds(const OpLayers& layers) {
  std::map<LayerKind, int64_t> of_kind;
  for (LayerKind kind : layers.kinds) {
    std::set<int64_t> counts;
    for (const std::string& op : layers.ops) {
      if (layer_kind_of(op) == kind)
        counts.insert(layers.per_op.at(op));
    }
    if (counts.size() == 1)
      of_kind[kind] = *counts.begin();
  }
  return of_kind;
}

}  // namespace

ParsedOpLayers parse_op_layers(std::string_view text) {
  ParsedOpLayers parsed;
  auto fail = [&parsed](std::string problem) {
    parsed.layers.clear();
    parsed.problem = std::move(problem);
    return parsed;
  };
  size_t start = 0;
  while (true) {
    const size_t space = text.find(' ', start);
    const std::string_view entry = text.substr(start, space - start);
    const size_t equals = entry.find('=');
    if (entry.empty())
      return fail("an empty entry (entries are op=layers, one space apart)");
    if (equals == std::string_view::npos)
      return fail("entry '" + std::string(entry) + "' is not op=layers");
    const std::string op(entry.substr(0, equals));
    const std::string_view count = entry.substr(equals + 1);
    if (!is_model_op(op))
      return fail("unknown op '" + op + "'");
    const std::optional<int64_t> layers = parse_non_negative(count);
    if (!layers || *layers == 0)
      return fail("layers of " + op + " must be a positive integer, got '" + std::string(count) +
                  "'");
    if (!parsed.layers.emplace(op, *layers).second)
      return fail("op " + op + " is listed twice");
    if (space == std::string_view::npos)
      return parsed;
    start = space + 1;
  }
}

std::string_view layer_kind_token(LayerKind kind) {
  return kind == LayerKind::kDense ? "dense" : "moe";
}

std::string_view layer_kind_name(LayerKind kind) {
  return kind == LayerKind::kDense ? "dense" : "MoE";
}

std::optional<LayerKind> layer_kind_of(std::string_view op) {
  if (op == "mlp_up" || op == "mlp_down")
    return LayerKind::kDense;
  if (op == "shared_up" || op == "shared_down" || op == "expert_up" || op == "expert_down")
    return LayerKind::kMoe;
  return std::nullopt;
}

std::optional<int64_t> OpLayers::common() const {
  if (per_op.empty() || mixed)
    return std::nullopt;
  return per_op.begin()->second;
}

std::optional<std::string> layer_kinds_text(const OpLayers& layers) {
  if (!layers.mixed || layers.kinds.empty() || layers.layers_of_kind.size() != layers.kinds.size())
    return std::nullopt;
  std::string text;
  for (LayerKind kind : layers.kinds) {
    text += (text.empty() ? "" : ", ") + std::to_string(layers.layers_of_kind.at(kind)) + " " +
            std::string(layer_kind_name(kind));
  }
  return text;
}

OpLayers op_layers(const RunContext& context, const std::vector<std::string>& present) {
  OpLayers layers;
  const std::optional<std::string> text = context.find("op_layers");
  const ParsedOpLayers parsed = text ? parse_op_layers(*text) : ParsedOpLayers{};
  const bool readable = text && parsed.problem.empty();
  std::set<std::string> ops = readable ? std::set<std::string>(present.begin(), present.end())
                                       : ops_without_op_layers(present);
  for (const auto& [op, count] : parsed.layers)
    ops.insert(op);
  layers.ops = in_layer_order(ops);
  layers.kinds = kinds_of(layers.ops);

  if (readable) {
    const auto unlisted =
        std::find_if(layers.ops.begin(), layers.ops.end(),
                     [&](const std::string& op) { return !parsed.layers.count(op); });
    if (unlisted != layers.ops.end()) {
      layers.na_reason = "op_layers has no count for " + *unlisted + " ('" + *text + "')";
    } else {
      layers.per_op = parsed.layers;
    }
  } else if (text) {
    layers.na_reason = "op_layers '" + *text + "' is malformed: " + parsed.problem;
  } else if (layers.kinds.size() > 1) {
    // num_hidden_layers for every op would put a dense and a MoE layer in every layer.
    layers.na_reason =
        "op_layers is not in the JSON context, and num_hidden_layers cannot count a run with "
        "both dense (mlp_*) and MoE (shared_*, expert_*) layers";
  } else {
    const LayerCount every_op = layer_count(context);
    for (const std::string& op : layers.ops) {
      if (every_op.layers)
        layers.per_op[op] = *every_op.layers;
    }
    layers.na_reason = every_op.na_reason;
  }

  if (layers.per_op.empty()) {
    layers.mixed = layers.kinds.size() > 1;
  } else {
    std::set<int64_t> counts;
    for (const auto& [op, count] : layers.per_op)
      counts.insert(count);
    layers.mixed = counts.size() > 1;
    layers.layers_of_kind = layers_of_kinds(layers);
  }
  return layers;
}

}  // namespace gemmscope::report
