#pragma once

// Reading one Google Benchmark JSON file (--benchmark_out_format=json, versions 1.7 and 1.8)
// into plain records. Nothing here knows gemmscope's case names.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmscope::report {

struct BenchmarkEntry {
  enum class Outcome { kOk, kError, kSkipped };

  std::string name;      // "name": run_name plus "_median" etc. for aggregates
  std::string run_name;  // "run_name" (the registered name); "name" where absent
  bool is_aggregate = false;
  std::string aggregate_name;              // "mean", "median", "stddev", "cv", ... for aggregates
  std::optional<double> real_time;         // in time_unit; absent when GB wrote NaN or nothing
  std::string time_unit;                   // "ns", "us", "ms" or "s"
  Outcome outcome = Outcome::kOk;          // 1.7/1.8 error_occurred, 1.8 skipped
  std::string message;                     // error_message or skip_message
  std::map<std::string, double> counters;  // user counters (TFLOPS, M, emulated, ...)
  std::string label;
};

struct BenchmarkFile {
  std::string path;
  std::map<std::string, std::string> context;  // non-string values kept as their JSON text
  std::vector<BenchmarkEntry> entries;
  bool ended_early = false;  // cut off mid-run: `entries` are the complete ones before the cut
};

// Deeper than any Google Benchmark output (it nests four levels), shallow enough that no
// recursive step of reading or printing JSON can run out of stack.
inline constexpr size_t kMaxJsonDepth = 64;

// Throws std::runtime_error naming the file when it cannot be read, is not JSON, is nested
// deeper than kMaxJsonDepth, or is not Google Benchmark output. A file that ends early (a run
// killed mid-way) is read up to its last complete benchmark entry and marked ended_early; it
// is refused when it holds no complete entry.
BenchmarkFile load_benchmark_file(const std::string& path);

// The same, from text already read; source names it in error messages.
BenchmarkFile parse_benchmark_json(std::string_view text, const std::string& source);

}  // namespace gemmscope::report
