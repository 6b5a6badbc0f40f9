#pragma once

// How many of the model's layers hold each op of a model run. gemm_bench writes it into the
// context as op_layers ("qkv=61 attn_out=61 mlp_up=3 ..."); files older than that key count
// num_hidden_layers for every op. A model's time is the sum over its ops of time x layers, so a
// count read wrongly would be a wrong total that looks right: anything that cannot be read makes
// the counts unknown, with the reason, and the totals that need them n/a.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/report/run_context.h"

namespace gemmscope::report {

struct ParsedOpLayers {
  std::map<std::string, int64_t> layers;  // op -> layers; empty when problem is set
  std::string problem;                    // what is malformed, naming the entry
};

// Strict: "op=layers" entries separated by single spaces, each op a model op (kLayerOps) at most
// once, each count a positive integer (an op that no layer holds is not listed).
ParsedOpLayers parse_op_layers(std::string_view text);

// A mixture-of-experts model has layers of two kinds: dense ones (attention and mlp_*) and MoE
// ones (attention, shared_* and expert_*). Attention ops are in every layer.
enum class LayerKind { kDense, kMoe };
inline constexpr std::array<LayerKind, 2> kLayerKinds = {LayerKind::kDense, LayerKind::kMoe};

// "dense", "moe": the token CSV and JSON use.
std::string_view layer_kind_token(LayerKind kind);
// "dense", "MoE": the word for people.
std::string_view layer_kind_name(LayerKind kind);
// The kind of layer that holds `op`, or nullopt for an attention op (every layer holds it).
std::optional<LayerKind> layer_kind_of(std::string_view op);

struct OpLayers {
  std::vector<std::string> ops;           // the run's ops, in kLayerOps order
  std::map<std::string, int64_t> per_op;  // every op of `ops`, or empty when unknown
  std::string na_reason;                  // why per_op is empty
  // The layers differ in kind: op_layers gives ops different counts or, without counts, the
  // run has both mlp_* and MoE ops. There is then no one per-layer total, but one per kind.
  bool mixed = false;
  std::vector<LayerKind> kinds;                 // the kinds whose ops the run has
  std::map<LayerKind, int64_t> layers_of_kind;  // a kind whose ops all have one count

  // The count all ops share, when known and not mixed.
  std::optional<int64_t> common() const;
};

// "3 dense, 58 MoE": the layers of each kind, when the layers differ in kind and each kind's ops
// have one count.
std::optional<std::string> layer_kinds_text(const OpLayers& layers);

// `present`: the model ops that have cases in the input. The run's ops are those and the ones
// op_layers lists (a listed op without cases is missing, which keeps the totals honest); a file
// without op_layers whose ops are all qkv, attn_out, mlp_up, mlp_down has those four.
OpLayers op_layers(const RunContext& context, const std::vector<std::string>& present);

}  // namespace gemmscope::report
