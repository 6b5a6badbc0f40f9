#pragma once
// Which registered cases a run will time: Google Benchmark's --benchmark_filter, applied the
// way Google Benchmark applies it (an extended regular expression searched for in the full
// case name, "/manual_time" included; a leading '-' selects the cases it does not match;
// empty or "all" selects everything). The session needs the selection to know a group's
// members before Google Benchmark reaches them; should the two ever disagree, a case is only
// timed alone or in a group of its own, never reported wrongly.

#include <regex>
#include <string>

namespace gemmscope {

class CaseFilter {
 public:
  // Throws std::invalid_argument for an expression that does not compile.
  explicit CaseFilter(const std::string& filter);
  bool selects(const std::string& case_name) const;  // the name as registered

 private:
  std::regex expression_;
  bool negative_ = false;
};

}  // namespace gemmscope
