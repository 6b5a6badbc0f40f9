// Fuzzes make_workload, the validation of gemm_bench's model flags and --shapes: the input is
// lines of "name=value" (the flags as gemm_bench collects them); any of them is either refused
// with std::invalid_argument or gives GEMMs with dimensions in [1, kMaxGemmDimension].

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "shapes/workload.h"
#include "tests/fuzz/fuzz_check.h"

using gemmscope::fuzz::check;

namespace {

gemmscope::FlagValues flags_of(std::string_view text) {
  gemmscope::FlagValues flags;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      flags[std::string(line)] = "true";  // a bare boolean flag
    } else {
      flags[std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
    }
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return flags;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gemmscope::FlagValues flags = flags_of({reinterpret_cast<const char*>(data), size});
  gemmscope::Workload workload;
  try {
    workload = gemmscope::make_workload(flags);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  check(!workload.gemms.empty(), "an accepted workload has GEMMs");
  for (const gemmscope::LayerGemm& gemm : workload.gemms) {
    for (int64_t dim : {gemm.shape.m, gemm.shape.k, gemm.shape.n})
      check(dim >= 1 && dim <= gemmscope::kMaxGemmDimension, "GEMM dimensions are in range");
  }
  return 0;
}
