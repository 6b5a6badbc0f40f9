#pragma once

// The human-readable report (text and Markdown share it): headings, fact lists, tables and
// the notes that explain every n/a and mark once.

#include <string>
#include <utility>
#include <vector>

#include "tools/report/report.h"
#include "tools/report/table.h"

namespace gemmscope::report {

struct DocumentBlock {
  enum class Kind { kTitle, kSection, kParagraph, kList, kTable };
  Kind kind = Kind::kParagraph;
  std::string text;                                        // kTitle, kSection, kParagraph
  std::vector<std::pair<std::string, std::string>> items;  // kList: (marker, text)
  Table table;                                             // kTable
};

using Document = std::vector<DocumentBlock>;

Document build_document(const Report& report);

std::string render_text(const Document& document);
std::string render_markdown(const Document& document);

// One-line description of what a mode times.
std::string mode_description(Mode mode, const RunContext& context);

}  // namespace gemmscope::report
