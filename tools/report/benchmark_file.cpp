#include "tools/report/benchmark_file.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tools/report/json_outline.h"

namespace gemmscope::report {
namespace {

using nlohmann::json;

// Google Benchmark writes non-finite doubles as bare NaN / Infinity, which JSON does not
// allow; they become null so that one bad counter does not make the whole file unreadable.
std::string replace_non_finite_numbers(std::string_view text) {
  static constexpr std::array<std::string_view, 4> kWords = {"-Infinity", "Infinity", "-NaN",
                                                             "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"')
      in_string = true;
    const auto word = std::find_if(kWords.begin(), kWords.end(), [&](std::string_view w) {
      return text.substr(i, w.size()) == w;
    });
    if (word != kWords.end()) {
      out += "null";
      i += word->size() - 1;
    } else {
      out += c;
    }
  }
  return out;
}

// Keys Google Benchmark writes itself; every other number in an entry is a user counter.
bool is_benchmark_own_number(const std::string& key) {
  static constexpr std::array<std::string_view, 15> kOwn = {"family_index",
                                                            "per_family_instance_index",
                                                            "repetitions",
                                                            "repetition_index",
                                                            "threads",
                                                            "iterations",
                                                            "real_time",
                                                            "cpu_time",
                                                            "cpu_coefficient",
                                                            "real_coefficient",
                                                            "rms",
                                                            "allocs_per_iter",
                                                            "max_bytes_used",
                                                            "total_allocated_bytes",
                                                            "net_heap_growth"};
  return std::find(kOwn.begin(), kOwn.end(), key) != kOwn.end();
}

std::string string_or_empty(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool true_flag(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

BenchmarkEntry read_entry(const json& object, size_t index, const std::string& source) {
  if (!object.is_object() || !object.contains("name") || !object["name"].is_string()) {
    throw std::runtime_error(source + ": not Google Benchmark output (benchmarks[" +
                             std::to_string(index) + "] has no \"name\")");
  }
  BenchmarkEntry entry;
  entry.name = object["name"].get<std::string>();
  entry.run_name = string_or_empty(object, "run_name");
  if (entry.run_name.empty())
    entry.run_name = entry.name;
  entry.is_aggregate = string_or_empty(object, "run_type") == "aggregate";
  entry.aggregate_name = string_or_empty(object, "aggregate_name");
  if (const auto it = object.find("real_time"); it != object.end() && it->is_number()) {
    entry.real_time = it->get<double>();
  }
  entry.time_unit = string_or_empty(object, "time_unit");
  if (true_flag(object, "error_occurred")) {
    entry.outcome = BenchmarkEntry::Outcome::kError;
    entry.message = string_or_empty(object, "error_message");
  } else if (true_flag(object, "skipped")) {
    entry.outcome = BenchmarkEntry::Outcome::kSkipped;
    entry.message = string_or_empty(object, "skip_message");
  }
  for (const auto& [key, value] : object.items()) {
    if (value.is_number() && !is_benchmark_own_number(key))
      entry.counters[key] = value.get<double>();
  }
  entry.label = string_or_empty(object, "label");
  return entry;
}

// Parses `text`; when it ends early, parses what comes before its last complete benchmark entry
// instead, closing the benchmarks array and the top-level object, and sets ended_early.
json parse_document(const std::string& text, const std::string& source, bool& ended_early) {
  const JsonOutline outline = outline_json(text);
  if (outline.max_depth > kMaxJsonDepth) {
    throw std::runtime_error(source + ": not Google Benchmark output (nested " +
                             std::to_string(outline.max_depth) + " levels deep; at most " +
                             std::to_string(kMaxJsonDepth) + " are read)");
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& error) {
    // An error after the last complete entry of a text that never closes is where a run that
    // died stopped writing; one before it is a broken file.
    const bool cut_short = outline.ends_open && !outline.mismatched && error.byte > 0 &&
                           error.byte - 1 >= outline.end_of_last_entry;
    if (!cut_short)
      throw std::runtime_error(source + ": not JSON (" + error.what() + ")");
    if (outline.complete_entries == 0) {
      throw std::runtime_error(source +
                               ": ends early (a run cut short?) before its first complete "
                               "benchmark entry; nothing to recover");
    }
    ended_early = true;
    try {
      return json::parse(text.substr(0, outline.end_of_last_entry) + "]}");
    } catch (const json::exception& inner) {
      throw std::runtime_error(source + ": not JSON (" + inner.what() + ")");
    }
  } catch (const json::exception& error) {
    // A number too large for a double (found by fuzzing): nlohmann throws out_of_range.
    throw std::runtime_error(source + ": not JSON (" + error.what() + ")");
  }
}

}  // namespace

BenchmarkFile parse_benchmark_json(std::string_view text, const std::string& source) {
  BenchmarkFile file;
  const json document = parse_document(replace_non_finite_numbers(text), source, file.ended_early);
  if (!document.is_object() || !document.contains("benchmarks") ||
      !document["benchmarks"].is_array()) {
    throw std::runtime_error(source +
                             ": not Google Benchmark output (no \"benchmarks\" array; write it "
                             "with --benchmark_out=FILE --benchmark_out_format=json)");
  }
  file.path = source;
  if (const auto context = document.find("context");
      context != document.end() && context->is_object()) {
    for (const auto& [key, value] : context->items()) {
      file.context[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  const auto benchmarks_entry = document.find("benchmarks");
  const json& benchmarks = *benchmarks_entry;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    file.entries.push_back(read_entry(benchmarks[i], i, source));
  }
  return file;
}

BenchmarkFile load_benchmark_file(const std::string& path) {
  std::error_code status_error;
  if (std::filesystem::is_directory(path, status_error)) {
    throw std::runtime_error(path + ": is a directory, not a benchmark JSON file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw std::runtime_error(path + ": read error");
  return parse_benchmark_json(text.str(), path);
}

}  // namespace gemmscope::report
