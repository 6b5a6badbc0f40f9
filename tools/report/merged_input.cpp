#include "tools/report/merged_input.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

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

}  // namespace

MergedInput merge_files(const std::vector<BenchmarkFile>& files) {
  MergedInput merged;
  std::map<std::string, size_t> case_index;  // GemmCase::key() -> position in merged.cases
  std::set<std::string> quantize_names;
  std::set<std::string> unparsed_names;
  std::map<std::string, std::string> context;
  std::map<std::string, std::string> context_source;

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
      if (!(earlier.gemm.shape == result.gemm.shape)) {
        described += " (shape " + to_string(earlier.gemm.shape) + " -> " +
                     to_string(result.gemm.shape) + ")";
      }
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
