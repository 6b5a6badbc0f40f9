#pragma once
// Where each group of a grouped (mixture-of-experts) operand lives once quantized, whatever the
// format. A grouped operand is one row-major [rows, cols] tensor of G groups of rows, group
// after group (a group may have none: an expert no token was routed to). Each group is
// quantized as a tensor of its own, and all groups share one buffer per copy:
//   rowwise     [rows, cols]; group g's [rows_g, cols] starts at row row_offset(g)
//   columnwise  group after group; group g's transpose [cols, rows_g] starts where its rowwise
//               copy does, at element element_offset(g) = row_offset(g) * cols
//   scales      one buffer per copy; group g's scale tensor (its size is the format's business:
//               a function of that group copy's rows and cols) at its own byte offset, a
//               multiple of kGroupedScaleAlignment, since cuBLASLt and TMA want aligned scale
//               pointers
// Plain C++, no CUDA. Throws std::invalid_argument naming the offending value.

#include <cstdint>
#include <functional>
#include <vector>

namespace gemmscope {

constexpr int64_t kGroupedScaleAlignment = 16;

// Bytes of one group copy's scale tensor, given that copy's rows and cols (a columnwise copy's
// rows are the operand's cols). Never called for a group without rows, which has no scales.
using GroupScaleBytes = std::function<int64_t(int64_t rows, int64_t cols)>;

// Where every group's scale tensor of one copy lives in that copy's scale buffer.
class GroupedScaleLayout {
 public:
  int64_t offset(
      int64_t group) const;  // bytes from the buffer's start, kGroupedScaleAlignment-aligned
  int64_t bytes(int64_t group) const;                   // 0 for a group without rows
  int64_t total_bytes() const { return total_bytes_; }  // the buffer's size

 private:
  friend class GroupedLayout;
  std::vector<int64_t> offsets_;
  std::vector<int64_t> bytes_;
  int64_t total_bytes_ = 0;
};

class GroupedLayout {
 public:
  // At least one group, none negative; cols positive.
  GroupedLayout(std::vector<int64_t> group_rows, int64_t cols);

  int64_t group_count() const { return static_cast<int64_t>(group_rows_.size()); }
  int64_t rows() const { return rows_; }  // every group's
  int64_t cols() const { return cols_; }
  int64_t group_rows(int64_t group) const;
  int64_t row_offset(int64_t group) const;
  // First element of group g's rowwise copy and of its columnwise copy: row_offset(g) * cols.
  // Callers turn it into bytes with their element size.
  int64_t element_offset(int64_t group) const { return row_offset(group) * cols_; }

  // The placement of every group's scales of the rowwise copies ([rows_g, cols]) or of the
  // columnwise copies ([cols, rows_g]), each group's size from `bytes`.
  GroupedScaleLayout scales(bool columnwise, const GroupScaleBytes& bytes) const;

 private:
  void require_group(int64_t group) const;

  std::vector<int64_t> group_rows_;
  std::vector<int64_t> row_offsets_;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
};

}  // namespace gemmscope
