#include "tests/docs/doc_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>

namespace gemmscope::docs {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

size_t indentation(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? line.size() : first;
}

bool is_fence(const std::string& line) {
  return line.compare(indentation(line), 3, "```") == 0;
}

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos)
    return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") + 1 - begin);
}

// Submatch `group` of every match of `expression` in `text`, in order.
std::vector<std::string> submatches(const std::string& text, const std::regex& expression,
                                    int group) {
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), expression);
       it != std::sregex_iterator(); ++it) {
    found.push_back((*it)[group].str());
  }
  return found;
}

std::string basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<CodeBlock> code_blocks(const std::string& markdown) {
  std::vector<CodeBlock> blocks;
  const std::vector<std::string> lines = split_lines(markdown);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_fence(lines[i]))
      continue;
    const size_t indent = indentation(lines[i]);
    CodeBlock block;
    block.info = trim(lines[i].substr(indent + 3));
    block.line = static_cast<int>(i) + 1;
    for (++i; i < lines.size() && !is_fence(lines[i]); ++i)
      block.text += lines[i].substr(std::min(indent, indentation(lines[i]))) + "\n";
    blocks.push_back(block);
  }
  return blocks;
}

std::string prose(const std::string& markdown) {
  std::string result;
  bool in_block = false;
  for (const std::string& line : split_lines(markdown)) {
    const bool fence = is_fence(line);
    result += (in_block || fence ? "" : line) + "\n";
    if (fence)
      in_block = !in_block;
  }
  return result;
}

std::vector<std::string> inline_code(const std::string& prose_text) {
  std::vector<std::string> spans;
  size_t open = prose_text.find('`');
  while (open != std::string::npos) {
    const size_t close = prose_text.find('`', open + 1);
    if (close == std::string::npos)
      break;
    std::string span;
    bool space = false;
    for (const char c : prose_text.substr(open + 1, close - open - 1)) {
      if (c == '\n' || c == ' ') {
        space = true;
        continue;
      }
      if (space && !span.empty())
        span += ' ';
      space = false;
      span += c;
    }
    spans.push_back(span);
    open = prose_text.find('`', close + 1);
  }
  return spans;
}

std::string without_inline_code(const std::string& prose_text) {
  std::string result = prose_text;
  bool in_span = false;
  for (char& c : result) {
    if (c == '`') {
      in_span = !in_span;
      c = ' ';
    } else if (in_span && c != '\n') {
      c = ' ';
    }
  }
  return result;
}

std::vector<std::string> shell_commands(const std::string& block) {
  std::vector<std::string> commands;
  std::string pending;
  for (std::string line : split_lines(block)) {
    // A comment starts at an unquoted '#' that begins a word.
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote)
          quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
        line.erase(i);
        break;
      }
    }
    line = trim(line);
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued)
      line.pop_back();
    pending += (pending.empty() ? "" : " ") + trim(line);
    if (!continued) {
      if (!trim(pending).empty())
        commands.push_back(trim(pending));
      pending.clear();
    }
  }
  if (!trim(pending).empty())
    commands.push_back(trim(pending));
  return commands;
}

bool is_separator(const std::string& word) {
  return word == "&&" || word == "||" || word == "|" || word == ";";
}

std::vector<std::string> shell_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  const auto finish = [&] {
    if (in_word)
      words.push_back(word);
    word.clear();
    in_word = false;
  };
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      finish();
    } else if (c == '&' || c == '|' || c == ';') {
      finish();
      const bool doubled = c != ';' && i + 1 < command.size() && command[i + 1] == c;
      words.push_back(doubled ? std::string(2, c) : std::string(1, c));
      if (doubled)
        ++i;
    } else {
      word += c;
      in_word = true;
    }
  }
  finish();
  return words;
}

std::string program_of(const std::string& word) {
  if (word == "$B" || word == "${B}" || basename(word) == "gemm_bench")
    return "gemm_bench";
  if (basename(word) == "gemm_report")
    return "gemm_report";
  if (word.rfind("tools/", 0) == 0 && word.find('*') == std::string::npos)
    return word;
  return "";
}

std::vector<FlagUse> flag_uses(const std::vector<std::string>& words,
                               const std::string& default_program) {
  static const std::regex kFlag("^--([A-Za-z][A-Za-z0-9_-]*)");
  std::vector<FlagUse> uses;
  std::string program;
  bool command_start = true;
  for (const std::string& word : words) {
    if (is_separator(word)) {
      command_start = true;
      continue;
    }
    std::smatch flag;
    const bool is_flag = std::regex_search(word, flag, kFlag);
    if (command_start) {
      static const std::regex kAssignment("^[A-Za-z_][A-Za-z0-9_]*=");
      if (!is_flag && std::regex_search(word, kAssignment))
        continue;
      command_start = false;
      if (!is_flag) {
        const std::string ours = program_of(word);
        program = ours.empty() ? "external:" + basename(word) : ours;
        continue;
      }
      program = default_program;
    }
    if (is_flag) {
      uses.push_back({program, flag[1].str(), word});
    } else if (word == "--" && program.rfind("tools/", 0) == 0) {
      program = "gemm_bench";  // a tools/ script hands what follows "--" to gemm_bench
    } else if (!program_of(word).empty()) {
      program = program_of(word);
    }
  }
  return uses;
}

std::set<std::string> flag_names(const std::string& text) {
  static const std::regex kFlag("(^|[^A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9_-]*)");
  const std::vector<std::string> names = submatches(text, kFlag, 2);
  return {names.begin(), names.end()};
}

std::string last_command(const std::string& script) {
  std::string last;
  for (const std::string& line : split_lines(script)) {
    const std::string trimmed = trim(line);
    if (!trimmed.empty() && trimmed[0] != '#')
      last = trimmed;
  }
  return last;
}

bool filter_selects(const std::string& filter, const std::string& name) {
  const bool negative = !filter.empty() && filter[0] == '-';
  const std::regex expression(negative ? filter.substr(1) : filter, std::regex::extended);
  return std::regex_search(name, expression) != negative;
}

std::vector<std::string> link_targets(const std::string& prose_text) {
  static const std::regex kLink("\\]\\(([^()\\s]+)\\)");
  return submatches(without_inline_code(prose_text), kLink, 1);
}

std::string heading_anchor(const std::string& heading) {
  std::string anchor;
  for (const char c : heading) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      anchor += static_cast<char>(std::tolower(u));
    else if (c == ' ')
      anchor += '-';
    else if (c == '-' || c == '_' || u >= 0x80)
      anchor += c;
  }
  return anchor;
}

std::set<std::string> heading_anchors(const std::string& markdown) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  for (const std::string& line : split_lines(prose(markdown))) {
    const size_t hashes = line.find_first_not_of('#');
    if (hashes == 0 || hashes == std::string::npos || line[hashes] != ' ')
      continue;
    const std::string anchor = heading_anchor(trim(line.substr(hashes)));
    const int repeat = seen[anchor]++;
    anchors.insert(repeat == 0 ? anchor : anchor + "-" + std::to_string(repeat));
  }
  return anchors;
}

}  // namespace gemmscope::docs
