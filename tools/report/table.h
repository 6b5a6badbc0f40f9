#pragma once

// A titled table of strings, rendered as aligned plain text or as a Markdown table.

#include <cstddef>
#include <string>
#include <vector>

namespace gemmscope::report {

struct Table {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as wide as header
  size_t label_columns = 1;                    // left-aligned; the others hold numbers
};

// Characters on screen: UTF-8 code points, so that "·" or "×" do not skew alignment.
size_t display_width(const std::string& text);

// Columns separated by two spaces, numbers right-aligned, a dashed rule under the header.
std::string render_text_table(const Table& table);
// GitHub-flavoured Markdown; `|`, `*`, `\` and `<` in cells are escaped.
std::string render_markdown_table(const Table& table);
// Escapes what Markdown would otherwise read as markup in plain report text.
std::string escape_markdown(const std::string& text);

}  // namespace gemmscope::report
