#pragma once

// The run-level facts gemm_bench writes into the JSON "context" (device, clocks, versions,
// model config, layers, tokens). Any key may be absent in older or foreign files.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gemmscope::report {

class RunContext {
 public:
  RunContext() = default;
  explicit RunContext(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  const std::map<std::string, std::string>& values() const { return values_; }
  std::optional<std::string> find(const std::string& key) const;
  // The value, or "unknown" when the key is absent or empty.
  std::string value_or_unknown(const std::string& key) const;

 private:
  std::map<std::string, std::string> values_;
};

// num_hidden_layers, which turns a per-layer time into a model time.
struct LayerCount {
  std::optional<int64_t> layers;
  std::string na_reason;  // why layers is absent
};
LayerCount layer_count(const RunContext& context);

}  // namespace gemmscope::report
