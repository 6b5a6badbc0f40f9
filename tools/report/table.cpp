#include "tools/report/table.h"

#include <algorithm>
#include <stdexcept>

namespace gemmscope::report {
namespace {

void check_row_widths(const Table& table) {
  for (const auto& row : table.rows) {
    if (row.size() != table.header.size()) {
      throw std::invalid_argument("table '" + table.title + "' has a row of " +
                                  std::to_string(row.size()) + " cells under " +
                                  std::to_string(table.header.size()) + " columns");
    }
  }
}

std::string padded(const std::string& text, size_t width, bool left) {
  const std::string padding(width - display_width(text), ' ');
  return left ? text + padding : padding + text;
}

}  // namespace

size_t display_width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a continuation byte
  }));
}

std::string render_text_table(const Table& table) {
  check_row_widths(table);
  std::vector<size_t> widths(table.header.size(), 0);
  for (size_t c = 0; c < table.header.size(); ++c) {
    widths[c] = display_width(table.header[c]);
    for (const auto& row : table.rows)
      widths[c] = std::max(widths[c], display_width(row[c]));
  }
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0)
        line += "  ";
      line += padded(cells[c], widths[c], c < table.label_columns);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::string out;
  if (!table.title.empty())
    out += table.title + "\n";
  out += render_row(table.header);
  std::vector<std::string> rule;
  for (size_t width : widths)
    rule.push_back(std::string(width, '-'));
  out += render_row(rule);
  for (const auto& row : table.rows)
    out += render_row(row);
  return out;
}

std::string escape_markdown(const std::string& text) {
  std::string out;
  for (char c : text) {
    // `_` stays: GitHub does not read snake_case words as emphasis.
    if (c == '|' || c == '*' || c == '\\' || c == '<')
      out += '\\';
    out += c;
  }
  return out;
}

std::string render_markdown_table(const Table& table) {
  check_row_widths(table);
  auto render_row = [](const std::vector<std::string>& cells) {
    std::string line = "|";
    for (const std::string& cell : cells)
      line += " " + escape_markdown(cell) + " |";
    return line + "\n";
  };
  std::string out;
  if (!table.title.empty())
    out += "**" + escape_markdown(table.title) + "**\n\n";
  out += render_row(table.header);
  out += "|";
  for (size_t c = 0; c < table.header.size(); ++c) {
    out += c < table.label_columns ? " --- |" : " ---: |";
  }
  out += "\n";
  for (const auto& row : table.rows)
    out += render_row(row);
  return out;
}

}  // namespace gemmscope::report
