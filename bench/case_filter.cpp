#include "bench/case_filter.h"

#include <regex>
#include <stdexcept>

namespace gemmscope {

CaseFilter::CaseFilter(const std::string& filter) {
  std::string pattern = filter;
  if (!pattern.empty() && pattern[0] == '-') {
    negative_ = true;
    pattern.erase(0, 1);
  }
  if (pattern.empty() || pattern == "all")
    pattern = ".";
  try {
    expression_ = std::regex(pattern, std::regex::extended);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--benchmark_filter=" + filter + ": " + e.what());
  }
}

bool CaseFilter::selects(const std::string& case_name) const {
  // Google Benchmark matches the instance name, which ends with "/manual_time" here.
  const bool match = std::regex_search(case_name + "/manual_time", expression_);
  return match != negative_;
}

}  // namespace gemmscope
