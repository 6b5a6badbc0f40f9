#include "tools/report/implementation_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace gemmscope::report {
namespace {

struct TimedCase {
  Precision precision;
  bool grouped;
  Pass pass;
  Implementation implementation;
};

void add_timed(std::vector<TimedCase>& cases, Precision precision, bool grouped, Pass pass,
               const ReportValue& value) {
  if (!value.available())
    return;
  for (Implementation implementation : value.implementations)
    cases.push_back({precision, grouped, pass, implementation});
}

std::string cases_text(size_t count) {
  return std::to_string(count) + (count == 1 ? " case" : " cases");
}

// "cutlass 9 of 12 cases (Fprop, Dgrad), cublaslt 3 (Wgrad)", or "cutlass 6 cases" for one
// implementation: the most used first.
std::string group_text(const std::vector<const TimedCase*>& cases) {
  std::map<Implementation, size_t> counts;
  std::map<Implementation, std::set<Pass>> passes;
  std::set<Pass> all_passes;
  for (const TimedCase* timed : cases) {
    ++counts[timed->implementation];
    passes[timed->implementation].insert(timed->pass);
    all_passes.insert(timed->pass);
  }
  if (counts.size() == 1)
    return std::string(implementation_name(counts.begin()->first)) + " " + cases_text(cases.size());
  std::vector<std::pair<Implementation, size_t>> ranked(counts.begin(), counts.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [implementation, count] : ranked) {
    text += (text.empty() ? "" : ", ") + std::string(implementation_name(implementation)) + " " +
            (text.empty() ? std::to_string(count) + " of " + cases_text(cases.size())
                          : std::to_string(count));
    const std::set<Pass>& ran_in = passes.at(implementation);
    if (ran_in == all_passes)
      continue;
    std::string names;
    for (Pass pass : kPasses) {
      if (ran_in.count(pass) > 0)
        names += (names.empty() ? "" : ", ") + std::string(pass_name(pass));
    }
    text += " (" + names + ")";
  }
  return text;
}

std::optional<std::string> summary(const std::vector<Precision>& precisions,
                                   const std::vector<TimedCase>& cases) {
  const bool chosen = std::any_of(cases.begin(), cases.end(), [](const TimedCase& timed) {
    return timed.implementation != Implementation::kCublasLt &&
           timed.implementation != Implementation::kUnknown;
  });
  if (!chosen)
    return std::nullopt;
  const bool any_grouped =
      std::any_of(cases.begin(), cases.end(), [](const TimedCase& timed) { return timed.grouped; });
  const bool any_dense = std::any_of(cases.begin(), cases.end(),
                                     [](const TimedCase& timed) { return !timed.grouped; });
  std::string line;
  for (Precision precision : precisions) {
    for (bool grouped : {false, true}) {
      std::vector<const TimedCase*> group;
      for (const TimedCase& timed : cases) {
        if (timed.precision == precision && timed.grouped == grouped)
          group.push_back(&timed);
      }
      const bool all_cublaslt = std::all_of(group.begin(), group.end(), [](const TimedCase* timed) {
        return timed->implementation == Implementation::kCublasLt;
      });
      if (all_cublaslt)  // an empty group too
        continue;
      std::string head(precision_name(precision));
      if (any_grouped && any_dense)
        head += grouped ? " grouped" : " dense";
      line += (line.empty() ? "" : "; ") + head + ": " + group_text(group);
    }
  }
  return "Implementations (cuBLASLt unless listed): " + line + ".";
}

}  // namespace

std::optional<std::string> implementation_summary(const ModelModeReport& mode,
                                                  const OpLayers& layers) {
  std::vector<TimedCase> cases;
  for (Pass pass : kPasses) {
    for (const std::string& op : layers.ops) {
      for (Precision precision : mode.precisions) {
        add_timed(cases, precision, is_grouped_op(op), pass,
                  mode.per_op_ms.at(pass).at(op).at(precision));
      }
    }
  }
  return summary(mode.precisions, cases);
}

std::optional<std::string> implementation_summary(const ShapesModeReport& mode) {
  std::vector<TimedCase> cases;
  for (const ShapesRow& row : mode.rows) {
    for (Precision precision : mode.precisions)
      add_timed(cases, precision, false, row.pass, row.ms.at(precision));
  }
  return summary(mode.precisions, cases);
}

}  // namespace gemmscope::report
