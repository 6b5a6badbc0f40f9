// A sweep killed mid-way leaves its JSON cut anywhere: gemm_report reads every benchmark entry
// that is complete before the cut and none after it.

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "report_fixtures.h"
#include "tools/report/benchmark_file.h"
#include "tools/report/merged_input.h"

namespace gemmscope::report {
namespace {

using testing::fixture_path;

std::string fixture_text(const std::string& name) {
  std::ifstream in(fixture_path(name), std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Entry {
  std::string name;
  size_t end = 0;  // offset just past its closing brace
};

// The entries of a file Google Benchmark pretty-printed, found by its layout alone (each entry
// closes with a brace indented four spaces), independently of the code under test.
std::vector<Entry> entries_by_layout(const std::string& text) {
  std::vector<Entry> entries;
  const std::string name_key = "\n      \"name\": \"";
  const std::string close = "\n    }";
  for (size_t at = text.find(name_key); at != std::string::npos; at = text.find(name_key, at)) {
    const size_t name_start = at + name_key.size();
    const std::string name = text.substr(name_start, text.find('"', name_start) - name_start);
    at = text.find(close, name_start) + close.size();
    entries.push_back({name, at});
  }
  return entries;
}

// The names read from `text`, or nullopt when it is refused.
std::optional<std::vector<std::string>> names_read(const std::string& text, bool& ended_early) {
  try {
    const BenchmarkFile file = parse_benchmark_json(text, "cut.json");
    ended_early = file.ended_early;
    std::vector<std::string> names;
    for (const BenchmarkEntry& entry : file.entries)
      names.push_back(entry.name);
    return names;
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

void expect_cut_reads_entries_before_it(const std::string& text, const std::vector<Entry>& all,
                                        size_t cut) {
  std::vector<std::string> expected;
  for (const Entry& entry : all) {
    if (entry.end <= cut)
      expected.push_back(entry.name);
  }
  bool ended_early = false;
  const auto names = names_read(text.substr(0, cut), ended_early);
  if (expected.empty()) {
    EXPECT_FALSE(names.has_value()) << "cut at " << cut << " recovered a case it cannot have";
    return;
  }
  ASSERT_TRUE(names.has_value()) << "cut at " << cut << " was refused";
  EXPECT_TRUE(ended_early) << "cut at " << cut;
  EXPECT_EQ(*names, expected) << "cut at " << cut;
}

TEST(TruncatedFile, EveryCutReadsExactlyTheEntriesCompleteBeforeIt) {
  const std::string text = fixture_text("h200_te_tutorial_sweep.json");
  const std::vector<Entry> all = entries_by_layout(text);
  ASSERT_GT(all.size(), 100u);
  const size_t last_brace = text.rfind('}');
  // Cuts all over the file, inside the context and inside entries, at a step that is not a
  // multiple of the layout's period.
  for (size_t cut = 0; cut < last_brace; cut += 37)
    expect_cut_reads_entries_before_it(text, all, cut);
  // Cuts just before, at and after each entry's closing brace, and between entries.
  for (const Entry& entry : all) {
    for (size_t cut : {entry.end - 1, entry.end, entry.end + 1, entry.end + 3})
      expect_cut_reads_entries_before_it(text, all, cut);
  }
}

TEST(TruncatedFile, TheWholeFileIsNotMarked) {
  const BenchmarkFile file = parse_benchmark_json(fixture_text("h200_te_tutorial_sweep.json"), "a");
  EXPECT_FALSE(file.ended_early);
  EXPECT_EQ(file.entries.size(),
            entries_by_layout(fixture_text("h200_te_tutorial_sweep.json")).size());
}

TEST(TruncatedFile, QuotesBracketsAndEscapesInsideStringsDoNotEndAnEntry) {
  const std::string first =
      R"({"context": {"note": "a \"} ] {\" note\\"}, "benchmarks": [{"name": "a", "label": "x\\\"}]\\"})";
  const std::string second = R"(, {"name": "b", "label": "\"}]}\\\"}]}"})";
  const std::string text = first + second + "]}";
  bool ended_early = false;
  ASSERT_EQ(names_read(text, ended_early), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(ended_early);
  for (size_t cut = first.size(); cut < first.size() + second.size(); ++cut) {
    EXPECT_EQ(names_read(text.substr(0, cut), ended_early), (std::vector<std::string>{"a"}))
        << text.substr(0, cut);
    EXPECT_TRUE(ended_early);
  }
  for (size_t cut = 0; cut < first.size(); ++cut)
    EXPECT_EQ(names_read(text.substr(0, cut), ended_early), std::nullopt) << text.substr(0, cut);
}

TEST(TruncatedFile, ACutBeforeAnyCompleteEntryIsRefusedNamingTheFile) {
  const std::string text = fixture_text("h200_te_tutorial_sweep.json");
  const size_t in_context = text.find("\"device_name\"");
  const size_t in_first_entry = text.find("\"run_type\"");
  for (size_t cut : {in_context, in_first_entry}) {
    try {
      parse_benchmark_json(text.substr(0, cut), "cut.json");
      ADD_FAILURE() << "cut at " << cut << " was accepted";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()),
                "cut.json: ends early (a run cut short?) before its first complete benchmark "
                "entry; nothing to recover");
    }
  }
}

TEST(TruncatedFile, BrokenTextBeforeTheCutIsNotJsonRatherThanRecovered) {
  const std::string text =
      R"({"context": {}, "benchmarks": [{"name": "a"}, {"name": "b" "c"}, {"name": "d"}, {"na)";
  EXPECT_THROW(parse_benchmark_json(text, "broken.json"), std::runtime_error);
}

TEST(TruncatedFile, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_benchmark_json(deep, "deep.json");
    ADD_FAILURE() << "deep nesting was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "deep.json: not Google Benchmark output (nested 100000 levels deep; at most 64 "
              "are read)");
  }
}

TEST(TruncatedFile, TheMergedInputSaysTheFileEndedEarlyAndWhatWasRead) {
  const std::string text = fixture_text("h200_te_tutorial_sweep.json");
  const std::vector<Entry> all = entries_by_layout(text);
  BenchmarkFile file = parse_benchmark_json(text.substr(0, all[2].end + 40), "sweep.json");
  const MergedInput input = merge_files({file});
  ASSERT_EQ(input.notices.size(), 1u);
  EXPECT_EQ(input.notices[0],
            "sweep.json ends early (a run cut short?): read the 3 complete benchmark entries "
            "before the cut (3 GEMM cases); re-run the missing cases with --benchmark_filter and "
            "pass both files");
}

}  // namespace
}  // namespace gemmscope::report
