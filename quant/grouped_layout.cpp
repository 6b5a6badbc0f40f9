#include "quant/grouped_layout.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "quant/fp8/scale_layout.h"

namespace gemmscope {

int64_t GroupedScaleLayout::offset(int64_t group) const {
  if (group < 0 || group >= static_cast<int64_t>(offsets_.size())) {
    throw std::invalid_argument("GroupedScaleLayout: no group " + std::to_string(group) + " of " +
                                std::to_string(offsets_.size()));
  }
  return offsets_[static_cast<size_t>(group)];
}

int64_t GroupedScaleLayout::bytes(int64_t group) const {
  offset(group);  // checks the index
  return bytes_[static_cast<size_t>(group)];
}

GroupedLayout::GroupedLayout(std::vector<int64_t> group_rows, int64_t cols)
    : group_rows_(std::move(group_rows)), cols_(cols) {
  if (group_rows_.empty())
    throw std::invalid_argument("GroupedLayout: a grouped operand needs at least one group");
  if (cols_ <= 0)
    throw std::invalid_argument("GroupedLayout: cols must be positive, got " +
                                std::to_string(cols));
  row_offsets_.reserve(group_rows_.size());
  for (size_t g = 0; g < group_rows_.size(); ++g) {
    if (group_rows_[g] < 0) {
      throw std::invalid_argument("GroupedLayout: group " + std::to_string(g) +
                                  " has negative rows: " + std::to_string(group_rows_[g]));
    }
    row_offsets_.push_back(rows_);
    rows_ += group_rows_[g];
  }
}

void GroupedLayout::require_group(int64_t group) const {
  if (group < 0 || group >= group_count()) {
    throw std::invalid_argument("GroupedLayout: no group " + std::to_string(group) + " of " +
                                std::to_string(group_count()));
  }
}

int64_t GroupedLayout::group_rows(int64_t group) const {
  require_group(group);
  return group_rows_[static_cast<size_t>(group)];
}

int64_t GroupedLayout::row_offset(int64_t group) const {
  require_group(group);
  return row_offsets_[static_cast<size_t>(group)];
}

GroupedScaleLayout GroupedLayout::scales(bool columnwise, const GroupScaleBytes& bytes) const {
  GroupedScaleLayout layout;
  for (size_t g = 0; g < group_rows_.size(); ++g) {
    const int64_t rows = group_rows_[g];
    const int64_t size = rows == 0 ? 0 : columnwise ? bytes(cols_, rows) : bytes(rows, cols_);
    if (size < 0) {
      throw std::invalid_argument("GroupedLayout: group " + std::to_string(g) +
                                  "'s scale tensor has negative size " + std::to_string(size));
    }
    layout.offsets_.push_back(layout.total_bytes_);
    layout.bytes_.push_back(size);
    layout.total_bytes_ += round_up(size, kGroupedScaleAlignment);
  }
  return layout;
}

}  // namespace gemmscope
