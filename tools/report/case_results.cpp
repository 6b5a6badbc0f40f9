#include "tools/report/case_results.h"

#include <algorithm>
#include <map>

#include "tools/report/number_format.h"

namespace gemmscope::report {
namespace {

std::optional<double> to_milliseconds(double value, const std::string& unit) {
  // Division keeps a value that is exact in ms exact (1e-6 has no exact binary form).
  if (unit == "ns")
    return value / 1e6;
  if (unit == "us")
    return value / 1e3;
  if (unit == "ms")
    return value;
  if (unit == "s")
    return value * 1e3;
  return std::nullopt;
}

bool is_emulated(const BenchmarkEntry& entry) {
  const auto counter = entry.counters.find("emulated");
  if (counter != entry.counters.end() && counter->second >= 0.5)
    return true;
  return entry.label.find("emulated") != std::string::npos;
}

std::string failure_reason(const BenchmarkEntry& entry) {
  const char* verb = entry.outcome == BenchmarkEntry::Outcome::kSkipped ? "skipped" : "failed";
  return entry.message.empty() ? std::string(verb) : std::string(verb) + ": " + entry.message;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Fills result.ms / na_reason from the rows of one run_name; returns a problem that makes
// the entry unusable (an unknown time unit), or nullopt.
std::optional<std::string> measure(const std::vector<const BenchmarkEntry*>& rows,
                                   CaseResult& result) {
  std::vector<const BenchmarkEntry*> measured;
  const auto median_row = std::find_if(rows.begin(), rows.end(), [](const BenchmarkEntry* row) {
    return row->is_aggregate && row->aggregate_name == "median";
  });
  if (median_row != rows.end()) {
    measured.push_back(*median_row);
  } else {
    for (const BenchmarkEntry* row : rows) {
      if (!row->is_aggregate)
        measured.push_back(row);
    }
  }
  if (measured.empty()) {
    result.na_reason = "no median aggregate and no iteration rows";
    return std::nullopt;
  }
  std::vector<double> times_ms;
  std::string first_failure;
  for (const BenchmarkEntry* row : measured) {
    result.emulated = result.emulated || is_emulated(*row);
    // Repetitions of a case share its label; a row without one (a failed repetition) says
    // nothing.
    if (result.implementation == Implementation::kUnknown)
      result.implementation = case_implementation(row->label);
    if (row->outcome != BenchmarkEntry::Outcome::kOk) {
      if (first_failure.empty())
        first_failure = failure_reason(*row);
      continue;
    }
    if (!row->real_time) {
      if (first_failure.empty())
        first_failure = "real_time is not a number";
      continue;
    }
    const std::optional<double> ms = to_milliseconds(*row->real_time, row->time_unit);
    if (!ms)
      return "unknown time_unit '" + row->time_unit + "'";
    if (!(*ms > 0)) {
      // A GPU time of zero or less is a broken measurement, not a fast GEMM.
      if (first_failure.empty())
        first_failure = "real_time " + format_exact(*row->real_time) + " is not positive";
      continue;
    }
    times_ms.push_back(*ms);
  }
  if (times_ms.empty()) {
    result.na_reason = first_failure;
  } else {
    result.ms = median(times_ms);
  }
  return std::nullopt;
}

// The iteration rows of a run_name that has no aggregates: Google Benchmark writes more than
// one only with repetitions, and then also writes their aggregates.
size_t repeated_iteration_rows(const std::vector<const BenchmarkEntry*>& rows) {
  size_t iterations = 0;
  for (const BenchmarkEntry* row : rows) {
    if (row->is_aggregate)
      return 0;
    ++iterations;
  }
  return iterations;
}

}  // namespace

FileCases reduce_file(const BenchmarkFile& file) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const BenchmarkEntry*>> rows_by_name;
  for (const BenchmarkEntry& entry : file.entries) {
    auto& rows = rows_by_name[entry.run_name];
    if (rows.empty())
      order.push_back(entry.run_name);
    rows.push_back(&entry);
  }

  FileCases cases;
  for (const std::string& name : order) {
    ParsedName parsed = parse_case_name(name);
    if (parsed.kind == ParsedName::Kind::kQuantize) {
      cases.quantize_names.push_back(name);
      continue;
    }
    if (parsed.kind == ParsedName::Kind::kUnparseable) {
      cases.unparsed.push_back({name, parsed.problem});
      continue;
    }
    if (const size_t rows = repeated_iteration_rows(rows_by_name[name]); rows > 1) {
      cases.notices.push_back(file.path + " holds " + std::to_string(rows) + " rows of " + name +
                              " without repetition aggregates (the same case run twice?); their "
                              "median is used");
    }
    CaseResult result;
    result.gemm = std::move(parsed.gemm);
    result.source = file.path;
    if (auto problem = measure(rows_by_name[name], result)) {
      cases.unparsed.push_back({name, *problem});
      continue;
    }
    cases.cases.push_back(std::move(result));
  }
  return cases;
}

}  // namespace gemmscope::report
