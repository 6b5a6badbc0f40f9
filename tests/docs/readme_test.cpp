// Keeps the README and docs/*.md honest: the commands they show are the ones CI runs, every
// flag they name exists, every filter they show selects the cases it says, every compare.py
// example compares files the docs write, docs/flags.md is the current --help, and every path and
// link points at something. Runs gemm_bench only in ways that need no GPU (--help,
// --list_models, --benchmark_list_tests).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/docs/doc_text.h"

namespace gemmscope::docs {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = GEMMSCOPE_SOURCE_DIR;
constexpr size_t kMaxReadmeLines = 350;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Doc {
  std::string name;  // relative to the source directory, e.g. "docs/timing.md"
  std::string text;
};

// README.md, then docs/*.md in name order.
const std::vector<Doc>& all_docs() {
  static const std::vector<Doc> docs = [] {
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(kSourceDir / "docs")) {
      if (entry.path().extension() == ".md")
        names.push_back("docs/" + entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    names.insert(names.begin(), "README.md");
    std::vector<Doc> result;
    for (const std::string& name : names)
      result.push_back({name, read_text(kSourceDir / name)});
    return result;
  }();
  return docs;
}

const Doc& readme() {
  return all_docs().front();
}

std::string quoted(const std::string& word) {
  std::string result = "'";
  for (const char c : word)
    result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

struct Output {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Output run(const std::string& program, const std::vector<std::string>& arguments) {
  std::string command = quoted(program);
  for (const std::string& argument : arguments)
    command += " " + quoted(argument);
  command += " 2>&1";
  Output result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return result;
  char buffer[4096];
  size_t read;
  while ((read = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.output.append(buffer, read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// gemm_bench's --help: gemmscope's flags, then Google Benchmark's.
const std::string& bench_help() {
  static const std::string help = run(GEMM_BENCH_PATH, {"--help"}).output;
  return help;
}

const std::string& report_help() {
  static const std::string help = run(GEMM_REPORT_PATH, {"--help"}).output;
  return help;
}

std::string without_trailing_space(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.pop_back();
  return text;
}

// The case names gemm_bench lists for `arguments` (gemmscope's flags and a filter).
std::vector<std::string> listed_cases(const std::vector<std::string>& arguments, Output* result) {
  std::vector<std::string> with_list = arguments;
  with_list.push_back("--benchmark_list_tests");
  *result = run(GEMM_BENCH_PATH, with_list);
  std::vector<std::string> names;
  std::istringstream lines(result->output);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > 12 && line.compare(line.size() - 12, 12, "/manual_time") == 0)
      names.push_back(line);
  }
  return names;
}

// A shell command of a doc's sh blocks.
struct Command {
  std::string where;  // "README.md:42"
  std::string text;
  std::vector<std::string> words;
};

std::vector<Command> sh_commands(const Doc& doc) {
  std::vector<Command> commands;
  for (const CodeBlock& block : code_blocks(doc.text)) {
    if (block.info != "sh")
      continue;
    for (const std::string& text : shell_commands(block.text))
      commands.push_back({doc.name + ":" + std::to_string(block.line), text, shell_words(text)});
  }
  return commands;
}

// The gemm_bench flags of a command that a listing needs: gemmscope's own and the filter.
std::vector<std::string> listing_arguments(const std::vector<std::string>& words) {
  std::vector<std::string> arguments;
  for (const FlagUse& use : flag_uses(words, "gemmscope")) {
    if (use.program == "gemm_bench" &&
        (use.name.rfind("benchmark_", 0) != 0 || use.name == "benchmark_filter")) {
      arguments.push_back(use.word);
    }
  }
  return arguments;
}

std::string value_of(const std::string& flag_word) {
  const size_t eq = flag_word.find('=');
  return eq == std::string::npos ? "" : flag_word.substr(eq + 1);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += "\n  " + line;
  return text;
}

TEST(Readme, IsShort) {
  const size_t lines = std::count(readme().text.begin(), readme().text.end(), '\n');
  EXPECT_LE(lines, kMaxReadmeLines) << "README.md belongs to the set-up and everyday use; depth "
                                       "goes to docs/";
}

TEST(Readme, OpensWithTheMainJobAndTheTestCommandThatCiRuns) {
  std::vector<std::string> headings;
  std::istringstream lines(prose(readme().text));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("## ", 0) == 0)
      headings.push_back(line);
  }
  ASSERT_FALSE(headings.empty());
  EXPECT_EQ(headings.front(), "## Set-up: two commands");

  std::vector<CodeBlock> sh;
  for (const CodeBlock& block : code_blocks(readme().text)) {
    if (block.info == "sh")
      sh.push_back(block);
  }
  ASSERT_GE(sh.size(), 2u);
  const std::vector<std::string> main_job = shell_commands(sh[0].text);
  const std::vector<std::string> tests = shell_commands(sh[1].text);
  ASSERT_EQ(main_job.size(), 1u) << sh[0].text;
  ASSERT_EQ(tests.size(), 1u) << sh[1].text;
  // Both come before the second section.
  const size_t second_section = readme().text.find("\n" + headings.at(1) + "\n");
  const size_t second_block = readme().text.find(tests[0]);
  EXPECT_LT(second_block, second_section);

  // The test command is the one CI runs last.
  const std::string ci = last_command(read_text(kSourceDir / ".ci/run"));
  EXPECT_EQ(tests[0], ci) << "README.md's test command differs from .ci/run's last line";

  // The main job configures and builds as the test command does, but only target `programs`,
  // the two programs it runs (sooner to its first result), then runs gemm_bench and reports its
  // file.
  const size_t last_and = tests[0].rfind(" && ");
  ASSERT_NE(last_and, std::string::npos) << tests[0];
  const std::string build = tests[0].substr(0, last_and) + " --target programs && ";
  EXPECT_EQ(main_job[0].rfind(build, 0), 0u)
      << "the main job does not build as the tests do:\n  " << main_job[0] << "\n  " << build;
  std::string written;
  std::string reported;
  for (const FlagUse& use : flag_uses(shell_words(main_job[0]), "gemmscope")) {
    if (use.program == "gemm_bench" && use.name == "benchmark_out")
      written = value_of(use.word);
  }
  const std::vector<std::string> words = shell_words(main_job[0]);
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(program_of(words[words.size() - 2]), "gemm_report") << main_job[0];
  reported = words.back();
  EXPECT_FALSE(written.empty()) << main_job[0];
  EXPECT_EQ(written, reported) << "gemm_report does not read what gemm_bench wrote";
}

// The README's report excerpt is gemm_report's output for the run whose JSON it names (a
// fixture under tests/tools/fixtures/): every line of it but the "..." elisions, in order.
TEST(Readme, ExcerptIsTheReportOfTheRunItNames) {
  const std::vector<CodeBlock> blocks = code_blocks(readme().text);
  const auto excerpt = std::find_if(blocks.begin(), blocks.end(),
                                    [](const CodeBlock& block) { return block.info == "text"; });
  ASSERT_NE(excerpt, blocks.end()) << "README.md shows no report excerpt (a ```text block)";

  // The run: the fixture that the prose before the excerpt names.
  std::string before;
  std::istringstream lines(readme().text);
  std::string line;
  for (int number = 1; number < excerpt->line && std::getline(lines, line); ++number)
    before += line + "\n";
  std::string run_file;
  for (const std::string& span : inline_code(prose(before))) {
    if (span.rfind("tests/tools/fixtures/", 0) == 0 && span.size() > 5 &&
        span.compare(span.size() - 5, 5, ".json") == 0)
      run_file = span;
  }
  ASSERT_FALSE(run_file.empty()) << "the prose before the excerpt names no run "
                                    "(`tests/tools/fixtures/....json`)";

  const Output report = run(GEMM_REPORT_PATH, {(kSourceDir / run_file).string()});
  ASSERT_EQ(report.exit_code, 0) << report.output;
  size_t position = 0;
  size_t compared = 0;
  std::istringstream excerpt_lines(excerpt->text);
  while (std::getline(excerpt_lines, line)) {
    if (line == "...")
      continue;
    const size_t found = report.output.find(line + "\n", position);
    ASSERT_NE(found, std::string::npos) << "README.md's excerpt line is not in gemm_report "
                                        << run_file << " (or not in this order):\n  " << line;
    position = found + line.size() + 1;
    ++compared;
  }
  EXPECT_GT(compared, 20u);
}

TEST(Docs, EveryFlagIsInTheHelpOfItsProgram) {
  ASSERT_NE(bench_help().find("--benchmark_filter"), std::string::npos) << bench_help();
  ASSERT_NE(report_help().find("--format"), std::string::npos) << report_help();
  const std::set<std::string> bench = flag_names(bench_help());
  const std::set<std::string> report = flag_names(report_help());
  std::vector<std::string> unknown;
  const auto check = [&](const FlagUse& use, const std::string& where) {
    bool known = true;
    if (use.program == "gemm_bench") {
      known = bench.count(use.name) > 0;
    } else if (use.program == "gemm_report") {
      known = report.count(use.name) > 0;
    } else if (use.program == "gemmscope") {
      known = bench.count(use.name) > 0 || report.count(use.name) > 0;
    } else if (use.program.rfind("tools/", 0) == 0) {
      // A script's own flags are in its source; the rest it hands to gemm_bench.
      const std::string script = read_text(kSourceDir / use.program);
      known = !script.empty() &&
              (script.find("--" + use.name) != std::string::npos || bench.count(use.name) > 0);
    }  // external programs (cmake, ctest, ncu, nsys, ...): not ours to check
    if (!known)
      unknown.push_back(where + ": " + use.word + " (" + use.program + ")");
  };
  size_t checked = 0;
  for (const Doc& doc : all_docs()) {
    for (const CodeBlock& block : code_blocks(doc.text)) {
      const std::string where = doc.name + ":" + std::to_string(block.line);
      if (block.info == "sh") {
        for (const std::string& command : shell_commands(block.text)) {
          for (const FlagUse& use : flag_uses(shell_words(command), "gemmscope")) {
            check(use, where);
            ++checked;
          }
        }
      } else {
        for (const std::string& name : flag_names(block.text)) {
          check({"gemmscope", name, "--" + name}, where);
          ++checked;
        }
      }
    }
    const std::string text = prose(doc.text);
    for (const std::string& span : inline_code(text)) {
      for (const FlagUse& use : flag_uses(shell_words(span), "gemmscope")) {
        check(use, doc.name + ": `" + span + "`");
        ++checked;
      }
    }
    for (const std::string& name : flag_names(without_inline_code(text))) {
      check({"gemmscope", name, "--" + name}, doc.name);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
  EXPECT_TRUE(unknown.empty()) << "flags the docs name that --help does not:" << joined(unknown);
}

TEST(Docs, EveryFilterExampleSelectsCasesItMatches) {
  size_t readme_filters = 0;
  for (const Doc& doc : all_docs()) {
    for (const Command& command : sh_commands(doc)) {
      const std::vector<std::string> arguments = listing_arguments(command.words);
      const auto filter = std::find_if(arguments.begin(), arguments.end(), [](const auto& word) {
        return word.rfind("--benchmark_filter=", 0) == 0;
      });
      if (filter == arguments.end())
        continue;
      if (doc.name == "README.md")
        ++readme_filters;
      Output result;
      const std::vector<std::string> names = listed_cases(arguments, &result);
      EXPECT_EQ(result.exit_code, 0) << command.where << ": " << command.text << "\n"
                                     << result.output;
      EXPECT_FALSE(names.empty()) << command.where << ": " << command.text << " selects no case\n"
                                  << result.output;
      for (const std::string& name : names) {
        EXPECT_TRUE(filter_selects(value_of(*filter), name))
            << command.where << ": " << *filter << " listed " << name;
      }
    }
  }
  EXPECT_GE(readme_filters, 3u) << "the README shows how to pick cases";
}

TEST(Docs, NcuRangesNameACaseTheCommandRuns) {
  size_t ranges = 0;
  for (const Doc& doc : all_docs()) {
    for (const Command& command : sh_commands(doc)) {
      const auto include = std::find(command.words.begin(), command.words.end(), "--nvtx-include");
      if (include == command.words.end() || include + 1 == command.words.end())
        continue;
      ++ranges;
      std::string range = *(include + 1);
      ASSERT_FALSE(range.empty());
      ASSERT_EQ(range.back(), '/') << command.where << ": a range names every component";
      range.pop_back();
      Output result;
      const std::vector<std::string> names =
          listed_cases(listing_arguments(command.words), &result);
      EXPECT_NE(std::find(names.begin(), names.end(), range + "/manual_time"), names.end())
          << command.where << ": " << range
          << " is none of the cases the command runs:" << joined(names);
    }
  }
  EXPECT_GE(ranges, 1u);
}

TEST(Docs, CompareExamplesCompareFilesTheDocsWrite) {
  std::map<std::string, size_t> benchmarks_form;  // doc -> compare.py benchmarks examples
  for (const Doc& doc : all_docs()) {
    // The files a doc's commands write, with the gemm_bench arguments that wrote them.
    std::map<std::string, std::vector<std::string>> written;
    for (const Command& command : sh_commands(doc)) {
      for (const FlagUse& use : flag_uses(command.words, "gemmscope")) {
        if ((use.program == "gemm_bench" && use.name == "benchmark_out") ||
            (use.program == "tools/torch_peer.py" && use.name == "out")) {
          written[value_of(use.word)] = listing_arguments(command.words);
        }
      }
      const std::vector<std::string>& w = command.words;
      if (w.empty() || w[0].size() < 10 || w[0].compare(w[0].size() - 10, 10, "compare.py") != 0)
        continue;
      ASSERT_GE(w.size(), 2u) << command.where;
      const std::string& mode = w[1];
      const size_t arguments = w.size() - 2;
      if (mode == "benchmarks") {
        ++benchmarks_form[doc.name];
        ASSERT_EQ(arguments, 2u) << command.where << ": compare.py benchmarks A B";
        for (const std::string& file : {w[2], w[3]})
          EXPECT_EQ(written.count(file), 1u)
              << command.where << ": no command above writes " << file;
      } else if (mode == "filters") {
        ASSERT_EQ(arguments, 3u) << command.where << ": compare.py filters FILE A B";
        ASSERT_EQ(written.count(w[2]), 1u) << command.where << ": no command above writes " << w[2];
        Output result;
        const std::vector<std::string> names = listed_cases(written[w[2]], &result);
        for (const std::string& filter : {w[3], w[4]}) {
          EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                                  [&](const std::string& n) { return filter_selects(filter, n); }))
              << command.where << ": " << filter << " selects none of " << w[2] << "'s cases";
        }
      } else {
        ADD_FAILURE() << command.where << ": compare.py " << mode
                      << " is not a mode these docs describe";
      }
    }
  }
  EXPECT_GE(benchmarks_form["README.md"], 1u);
  EXPECT_GE(benchmarks_form["docs/user_guide.md"], 1u)
      << "the user guide describes the form the README uses";
}

TEST(Docs, FlagsPageIsTheCurrentHelp) {
  const Doc* flags = nullptr;
  for (const Doc& doc : all_docs()) {
    if (doc.name == "docs/flags.md")
      flags = &doc;
  }
  ASSERT_NE(flags, nullptr);
  std::vector<std::string> text_blocks;
  for (const CodeBlock& block : code_blocks(flags->text)) {
    if (block.info == "text")
      text_blocks.push_back(block.text);
  }
  ASSERT_GE(text_blocks.size(), 2u);
  const std::string gemmscope_part =
      bench_help().substr(0, bench_help().find("\nGoogle Benchmark's flags:"));
  EXPECT_EQ(without_trailing_space(text_blocks[0]), without_trailing_space(gemmscope_part))
      << "docs/flags.md's gemm_bench block is not `gemm_bench --help`: regenerate it (the page "
         "says how)";
  EXPECT_EQ(without_trailing_space(text_blocks[1]), without_trailing_space(report_help()))
      << "docs/flags.md's gemm_report block is not `gemm_report --help`: regenerate it";
}

TEST(Docs, PathsAndLinksExist) {
  static const std::regex kPath(
      "^(\\.ci|bench|cmake|docs|kernels|quant|shapes|tests|tools)/[A-Za-z0-9_./-]*$");
  std::vector<std::string> missing;
  size_t checked = 0;
  for (const Doc& doc : all_docs()) {
    std::vector<std::string> words;
    const std::string text = prose(doc.text);
    for (const std::string& span : inline_code(text)) {
      for (const std::string& word : shell_words(span))
        words.push_back(word);
    }
    for (const Command& command : sh_commands(doc))
      words.insert(words.end(), command.words.begin(), command.words.end());
    for (const std::string& word : words) {
      if (!std::regex_match(word, kPath))
        continue;
      ++checked;
      if (!fs::exists(kSourceDir / word))
        missing.push_back(doc.name + ": " + word);
    }
    const fs::path here = fs::path(doc.name).parent_path();
    for (const std::string& target : link_targets(text)) {
      if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0)
        continue;
      ++checked;
      const size_t hash = target.find('#');
      const std::string file = target.substr(0, hash);
      const fs::path path = file.empty() ? fs::path(doc.name) : here / file;
      if (!fs::exists(kSourceDir / path)) {
        missing.push_back(doc.name + ": link " + target);
      } else if (hash != std::string::npos &&
                 !heading_anchors(read_text(kSourceDir / path)).count(target.substr(hash + 1))) {
        missing.push_back(doc.name + ": link " + target + " (no such heading)");
      }
    }
  }
  EXPECT_GT(checked, 50u);
  EXPECT_TRUE(missing.empty()) << "paths and links that lead nowhere:" << joined(missing);
}

TEST(Docs, EveryModelNamedIsAPreset) {
  const Output list = run(GEMM_BENCH_PATH, {"--list_models"});
  ASSERT_EQ(list.exit_code, 0) << list.output;
  std::set<std::string> presets;
  std::istringstream lines(list.output);
  for (std::string line; std::getline(lines, line);)
    presets.insert(line.substr(0, line.find(' ')));
  static const std::regex kModel("--model=([a-z0-9][a-z0-9.-]*)");
  std::vector<std::string> unknown;
  for (const Doc& doc : all_docs()) {
    for (auto it = std::sregex_iterator(doc.text.begin(), doc.text.end(), kModel);
         it != std::sregex_iterator(); ++it) {
      if (!presets.count((*it)[1].str()))
        unknown.push_back(doc.name + ": " + it->str());
    }
  }
  EXPECT_TRUE(unknown.empty()) << "models that are no preset:" << joined(unknown);
}

}  // namespace
}  // namespace gemmscope::docs
