// Fuzzes gemm_report's case-name parser: any name is a GEMM case, a quantization case or
// unparseable with a problem; a GEMM case's fields print back to a name that parses the same.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.h"
#include "tools/report/case_name.h"

using gemmscope::fuzz::check;
using gemmscope::report::ParsedName;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  const ParsedName parsed = gemmscope::report::parse_case_name(name);
  if (parsed.kind == ParsedName::Kind::kUnparseable) {
    check(!parsed.problem.empty(), "an unparseable name says why");
    return 0;
  }
  if (parsed.kind != ParsedName::Kind::kGemm)
    return 0;
  const gemmscope::GemmShape& shape = parsed.gemm.shape;
  check(shape.m > 0 && shape.k > 0 && shape.n > 0, "a GEMM case has positive dimensions");
  check(!parsed.gemm.groups || *parsed.gemm.groups > 0, "a grouped GEMM has groups");
  // Printed here from the fields, not by GemmCase::name(), so that the check is independent.
  const std::string groups =
      parsed.gemm.groups ? "/G:" + std::to_string(*parsed.gemm.groups) : std::string();
  const std::string printed = parsed.gemm.key() + groups + "/M:" + std::to_string(shape.m) +
                              "/K:" + std::to_string(shape.k) + "/N:" + std::to_string(shape.n);
  const ParsedName again = gemmscope::report::parse_case_name(printed);
  check(again.kind == ParsedName::Kind::kGemm && again.gemm.key() == parsed.gemm.key() &&
            again.gemm.groups == parsed.gemm.groups && again.gemm.shape == shape &&
            parsed.gemm.name() == printed,
        "a GEMM case's fields print back to a name that parses the same");
  return 0;
}
