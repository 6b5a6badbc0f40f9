#pragma once
// How the MXFP8 and NVFP4 recipes get an operand's layout from its source, for one tensor or a
// grouped operand alike: a shape the format refuses is Unsupported (the case is skipped with the
// reason), while a malformed grouped source is a fault.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/operand_source.h"
#include "quant/base/unsupported.h"

namespace gemmscope {

// make(), a layout of `format`; its std::invalid_argument (a shape the format refuses) thrown
// as Unsupported with the reason.
template <typename Make>
auto layout_or_unsupported(const std::string& format, Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const std::invalid_argument& e) {
    throw Unsupported(format + " cannot take this shape: " + e.what());
  }
}

// A grouped source's rows per group. Throws std::invalid_argument, naming `context`, unless the
// source is grouped and its groups' rows are non-negative and sum to its rows.
const std::vector<int64_t>& checked_group_rows(const OperandSource& source,
                                               const std::string& context);

}  // namespace gemmscope
