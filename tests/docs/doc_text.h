#pragma once
// Reading the README and docs/*.md the way tests/docs checks them: Markdown code blocks, inline
// code and links; the shell commands of `sh` blocks, split into words; the flags those commands
// and the prose name, each with the program it is given to. Plain C++, no GPU.

#include <set>
#include <string>
#include <vector>

namespace gemmscope::docs {

// A fenced code block (```info ... ```), its fence's indentation removed from every line.
struct CodeBlock {
  std::string info;  // "sh", "text", or "" for a fence without one
  std::string text;  // its lines, each ending in '\n'
  int line = 0;      // the 1-based line of its opening fence
};
std::vector<CodeBlock> code_blocks(const std::string& markdown);

// The Markdown with every fenced code block's lines blanked (line numbers are kept).
std::string prose(const std::string& markdown);

// The `inline code` spans of prose, a span that wraps lines joined with single spaces.
std::vector<std::string> inline_code(const std::string& prose_text);

// The prose with its inline code spans blanked.
std::string without_inline_code(const std::string& prose_text);

// The commands of a shell block: lines ending in '\' joined to the next, comments (from a '#'
// that starts an unquoted word) removed, blank lines dropped.
std::vector<std::string> shell_commands(const std::string& block);

// A command's words, with quotes removed. The unquoted separators "&&", "||", "|" and ";" are
// words of their own.
std::vector<std::string> shell_words(const std::string& command);
bool is_separator(const std::string& word);

// "gemm_bench" for build/bench/gemm_bench, gemm_bench and $B (the docs' name for it);
// "gemm_report" for .../gemm_report; the path for a tools/ script; "" for anything else.
std::string program_of(const std::string& word);

// A flag as the docs use it.
struct FlagUse {
  std::string program;  // program_of()'s answer, "external:<name>" for another program, or
                        // the default program for flags outside any command
  std::string name;     // without "--" and without its value
  std::string word;     // the whole word, e.g. "--benchmark_filter=NVFP4/Wgrad"
};

// The flags of one command's words, each given to the program it follows: the first word of a
// simple command (after NAME=value assignments) is its program; a later word that is one of
// ours takes over (ncu ... build/bench/gemm_bench ...), and so does gemm_bench after a bare
// "--" (tools/torch_peer.py --out=F -- --model=M). A command that starts with a flag (inline
// code such as `--verify`) gives it to `default_program`.
std::vector<FlagUse> flag_uses(const std::vector<std::string>& words,
                               const std::string& default_program);

// The names of every "--name" in `text` (help text, or prose), without "--" and value.
std::set<std::string> flag_names(const std::string& text);

// The last command a shell script runs: its last line that is neither blank nor a comment,
// trimmed.
std::string last_command(const std::string& script);

// Whether Google Benchmark's --benchmark_filter=`filter` selects `name`: an extended regular
// expression searched for in the name; a leading '-' selects the names it does not match.
bool filter_selects(const std::string& filter, const std::string& name);

// The targets of the [text](target) and ![alt](target) links of prose.
std::vector<std::string> link_targets(const std::string& prose_text);

// The anchor GitHub gives a heading's text ("Verification (`--verify`)" ->
// "verification---verify").
std::string heading_anchor(const std::string& heading);
// The anchors of every "#" heading of a Markdown file (repeats get -1, -2, ... as on GitHub).
std::set<std::string> heading_anchors(const std::string& markdown);

}  // namespace gemmscope::docs
