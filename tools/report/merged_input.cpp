#include "tools/report/merged_input.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "tools/report/op_layers.h"

namespace gemmscope::report {
namespace {

// Context keys that say which run a file is; files that differ here probably should not
// be merged, so the report says so.
constexpr std::array<std::string_view, 6> kRunIdentityKeys = {"device_name",  "compute_capability",
                                                              "model_config", "num_hidden_layers",
                                                              "tokens",       "cublaslt_version"};

// "x replaces 2 cases from y: A, B" with at most kListed names spelled out.
std::string replacement_notice(const std::string& later, const std::string& earlier,
                               const std::vector<std::string>& keys) {
  constexpr size_t kListed = 5;
  std::string notice = later + " replaces " + std::to_string(keys.size()) +
                       (keys.size() == 1 ? " case" : " cases") + " from " + earlier + ": ";
  for (size_t i = 0; i < keys.size() && i < kListed; ++i) {
    notice += (i > 0 ? ", " : "") + keys[i];
  }
  if (keys.size() > kListed)
    notice += " and " + std::to_string(keys.size() - kListed) + " more";
  return notice;
}

std::string ended_early_notice(const BenchmarkFile& file, size_t gemm_cases) {
  const size_t entries = file.entries.size();
  return file.path + " ends early (a run cut short?): read the " + std::to_string(entries) +
         " complete benchmark " + (entries == 1 ? "entry" : "entries") + " before the cut (" +
         std::to_string(gemm_cases) + " GEMM " + (gemm_cases == 1 ? "case" : "cases") +
         "); re-run the missing cases with --benchmark_filter and pass both files";
}

// The layers per op a file states: its op_layers or, in a file older than that key,
// num_hidden_layers for each model op it has cases of. Empty when it states neither readably
// (the report then says why the totals that need them are n/a).
std::map<std::string, int64_t> stated_op_layers(const BenchmarkFile& file, const FileCases& cases) {
  const RunContext context(file.context);
  if (const auto text = context.find("op_layers"))
    return parse_op_layers(*text).layers;
  std::map<std::string, int64_t> layers;
  const LayerCount every_op = layer_count(context);
  for (const CaseResult& result : cases.cases) {
    if (every_op.layers && is_model_op(result.gemm.op))
      layers[result.gemm.op] = *every_op.layers;
  }
  return layers;
}

// The layers per op of each file against those of the files before it. Layers multiply times,
// so files that count an op differently cannot both be right about the model total. Compared as
// counts, so that a file without op_layers agrees with one whose op_layers says the same.
class OpLayersCheck {
 public:
  // A notice per earlier file that `file` disagrees with; `used` names what the report counts
  // layers with.
  std::vector<std::string> add(const BenchmarkFile& file, const FileCases& cases,
                               const std::string& used) {
    std::map<std::string, std::string> differences;  // earlier file -> "mlp_up 61 vs 3, ..."
    std::vector<std::string> sources;                // those files, in the order found
    for (const auto& [op, layers] : stated_op_layers(file, cases)) {
      const auto known = stated_.find(op);
      if (known != stated_.end() && known->second.first != layers) {
        std::string& text = differences[known->second.second];
        if (text.empty())
          sources.push_back(known->second.second);
        text += (text.empty() ? "" : ", ") + op + " " + std::to_string(layers) + " vs " +
                std::to_string(known->second.first);
      }
      stated_[op] = {layers, file.path};
    }
    std::vector<std::string> notices;
    for (const std::string& source : sources) {
      notices.push_back(file.path + " and " + source + " disagree on the layers per op (" +
                        differences[source] + "); the report uses " + used);
    }
    return notices;
  }

 private:
  std::map<std::string, std::pair<int64_t, std::string>> stated_;  // op -> (layers, file)
};

}  // namespace

MergedInput merge_files(const std::vector<BenchmarkFile>& files) {
  MergedInput merged;
  std::map<std::string, size_t> case_index;  // GemmCase::key() -> position in merged.cases
  std::set<std::string> quantize_names;
  std::set<std::string> unparsed_names;
  std::map<std::string, std::string> context;
  std::map<std::string, std::string> context_source;
  OpLayersCheck op_layers;

  for (const BenchmarkFile& file : files) {
    merged.files.push_back(file.path);
    for (const auto& [key, value] : file.context) {
      const auto known = context.find(key);
      const bool identity = std::find(kRunIdentityKeys.begin(), kRunIdentityKeys.end(), key) !=
                            kRunIdentityKeys.end();
      if (identity && known != context.end() && known->second != value) {
        merged.notices.push_back(file.path + " and " + context_source[key] + " disagree on " + key +
                                 " ('" + value + "' vs '" + known->second +
                                 "'); the report uses '" + value + "'");
      }
      context[key] = value;
      context_source[key] = file.path;
    }

    FileCases cases = reduce_file(file);
    const auto used = context.find("op_layers");
    const std::vector<std::string> disagreements = op_layers.add(
        file, cases,
        used != context.end() && !used->second.empty() ? "op_layers '" + used->second + "'"
                                                       : "num_hidden_layers");
    merged.notices.insert(merged.notices.end(), disagreements.begin(), disagreements.end());
    if (file.ended_early)
      merged.notices.push_back(ended_early_notice(file, cases.cases.size()));
    merged.notices.insert(merged.notices.end(), cases.notices.begin(), cases.notices.end());
    quantize_names.insert(cases.quantize_names.begin(), cases.quantize_names.end());
    for (UnparsedEntry& entry : cases.unparsed) {
      if (unparsed_names.insert(entry.name).second)
        merged.unparsed.push_back(std::move(entry));
    }
    std::map<std::string, std::vector<std::string>> replaced_by_source;
    std::vector<std::string> source_order;
    for (CaseResult& result : cases.cases) {
      const std::string key = result.gemm.key();
      const auto known = case_index.find(key);
      if (known == case_index.end()) {
        case_index[key] = merged.cases.size();
        merged.cases.push_back(std::move(result));
        continue;
      }
      CaseResult& earlier = merged.cases[known->second];
      std::string described = key;
      const std::string earlier_size = size_text(earlier.gemm.shape, earlier.gemm.groups);
      const std::string later_size = size_text(result.gemm.shape, result.gemm.groups);
      if (earlier_size != later_size)
        described += " (shape " + earlier_size + " -> " + later_size + ")";
      auto& replaced = replaced_by_source[earlier.source];
      if (replaced.empty())
        source_order.push_back(earlier.source);
      replaced.push_back(described);
      earlier = std::move(result);
    }
    for (const std::string& source : source_order) {
      merged.notices.push_back(replacement_notice(file.path, source, replaced_by_source[source]));
    }
  }
  merged.context = RunContext(std::move(context));
  merged.quantize_cases = quantize_names.size();
  return merged;
}

}  // namespace gemmscope::report
