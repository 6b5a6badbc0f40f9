#include "tools/report/json_outline.h"

#include <algorithm>
#include <string>

namespace gemmscope::report {

JsonOutline outline_json(std::string_view text) {
  JsonOutline outline;
  std::string open;  // the unclosed '{' and '[' from the outermost in
  bool in_string = false;
  bool top_level_key_expected = false;  // directly inside the top-level object, before a key
  bool reading_top_level_key = false;
  size_t key_start = 0;
  std::string_view last_top_level_key;
  size_t benchmarks_depth = 0;  // open.size() inside the top-level "benchmarks" array, or 0

  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
        if (reading_top_level_key) {
          last_top_level_key = text.substr(key_start, i - key_start);
          reading_top_level_key = false;
        }
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        if (open.size() == 1 && top_level_key_expected) {
          reading_top_level_key = true;
          top_level_key_expected = false;
          key_start = i + 1;
        }
        break;
      case '{':
      case '[':
        open.push_back(c);
        outline.max_depth = std::max(outline.max_depth, open.size());
        if (open.size() == 1 && c == '{')
          top_level_key_expected = true;
        if (open.size() == 2 && c == '[' && last_top_level_key == "benchmarks")
          benchmarks_depth = 2;
        break;
      case '}':
      case ']':
        if (open.empty() || open.back() != (c == '}' ? '{' : '[')) {
          outline.mismatched = true;
          return outline;
        }
        open.pop_back();
        if (benchmarks_depth != 0 && open.size() == benchmarks_depth) {
          ++outline.complete_entries;
          outline.end_of_last_entry = i + 1;
        } else if (benchmarks_depth != 0 && open.size() < benchmarks_depth) {
          benchmarks_depth = 0;  // the array itself closed
        }
        break;
      case ',':
        if (open.size() == 1)
          top_level_key_expected = true;
        break;
      default:
        break;
    }
  }
  outline.ends_open = in_string || !open.empty();
  return outline;
}

}  // namespace gemmscope::report
