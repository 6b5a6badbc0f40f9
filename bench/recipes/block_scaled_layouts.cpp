#include "bench/recipes/block_scaled_layouts.h"

namespace gemmscope {

const std::vector<int64_t>& checked_group_rows(const OperandSource& source,
                                               const std::string& context) {
  if (!source.grouped())
    throw std::invalid_argument(context + ": the source is not grouped");
  int64_t rows = 0;
  for (const int64_t group_rows : source.group_rows) {
    if (group_rows < 0)
      throw std::invalid_argument(context + ": a group has negative rows");
    rows += group_rows;
  }
  if (rows != source.rows)
    throw std::invalid_argument(context + ": the groups' rows do not sum to the tensor's");
  return source.group_rows;
}

}  // namespace gemmscope
