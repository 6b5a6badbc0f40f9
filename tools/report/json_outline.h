#pragma once

// One pass over JSON text that follows only its strings and brackets, so that gemm_report can
// refuse input nested too deeply for a recursive reader and can find, in a Google Benchmark file
// cut short by a run that died, where its last complete benchmark entry ends.

#include <cstddef>
#include <string_view>

namespace gemmscope::report {

struct JsonOutline {
  size_t max_depth = 0;     // deepest nesting of objects and arrays
  bool ends_open = false;   // the text ends inside a string or an unclosed object or array
  bool mismatched = false;  // a closing bracket that does not match the open one
  // Elements of the top-level object's "benchmarks" array closed before the text ends, and the
  // offset just past the last of them (0 when none).
  size_t complete_entries = 0;
  size_t end_of_last_entry = 0;
};

// Values are not checked (a JSON parser does that); only where strings, escapes and brackets
// begin and end.
JsonOutline outline_json(std::string_view text);

}  // namespace gemmscope::report
