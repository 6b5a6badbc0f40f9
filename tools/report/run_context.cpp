#include "tools/report/run_context.h"

#include "tools/report/integer_text.h"

namespace gemmscope::report {

std::optional<std::string> RunContext::find(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end() || it->second.empty())
    return std::nullopt;
  return it->second;
}

std::string RunContext::value_or_unknown(const std::string& key) const {
  return find(key).value_or("unknown");
}

LayerCount layer_count(const RunContext& context) {
  const std::optional<std::string> text = context.find("num_hidden_layers");
  if (!text)
    return {std::nullopt, "num_hidden_layers is not in the JSON context"};
  const std::optional<int64_t> layers = parse_non_negative(*text);
  if (!layers || *layers == 0) {
    return {std::nullopt, "num_hidden_layers '" + *text + "' is not a positive integer"};
  }
  return {*layers, ""};
}

}  // namespace gemmscope::report
