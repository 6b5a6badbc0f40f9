#pragma once
// A grouped operand's block-scaled copies (MXFP8, NVFP4) when every group is quantized as a
// tensor of its own: where each group's pieces lie in one buffer per copy piece
// (grouped_layout.h: data group after group, each group's scales at its own aligned offset), and
// each group's own tensor layout (`TensorLayout`: Mxfp8OperandLayout, Nvfp4OperandLayout), which
// sizes its pieces, refuses the shapes the format cannot take, and gives its views. A group's copy
// is thus the per-tensor copy of its rows, byte for byte, at an offset. A group without rows takes
// no bytes and has an empty copy (QuantizedTensor{}, 0 rows).
//
// Alignment: a group's data starts at element first_row * cols, so at a multiple of 16 bytes for
// MXFP8 and 8 for NVFP4 (cols a multiple of 32 or 16), what their kernels need; the recipes' row
// padding (32 and 128 rows) makes it a multiple of 1024. Swizzled scales come in 512-byte tiles,
// so every group's scales start on a tile.

#include <cstdint>
#include <optional>
#include <vector>

#include "quant/grouped_layout.h"
#include "quant/operand_copies.h"
#include "quant/quantized_tensor.h"

namespace gemmscope {

// Where one group lies: its rows in the BF16 input, and byte offsets into the whole buffers.
struct GroupPlacement {
  int64_t first_row = 0;
  int64_t rows = 0;
  int64_t data = 0;  // in each copy's data buffer (both copies of a group take the same bytes)
  int64_t rowwise_scale = 0;
  int64_t columnwise_scale = 0;
};

template <typename TensorLayout>
class GroupedOperandLayout {
 public:
  // `make(rows)`: the layout of one group of `rows` rows (and the operand's cols and copies); it
  // throws std::invalid_argument for shapes the format cannot take, and so does this, as
  // GroupedLayout does for no groups or a group with negative rows.
  template <typename Make>
  GroupedOperandLayout(const std::vector<int64_t>& group_rows, int64_t cols, OperandCopies copies,
                       Make&& make)
      : groups_(group_rows, cols), copies_(copies) {
    int64_t data = 0;
    for (const int64_t rows : group_rows) {
      tensors_.push_back(rows > 0 ? std::optional<TensorLayout>(make(rows)) : std::nullopt);
      data_offsets_.push_back(data);
      data += rows > 0 ? tensors_.back()->data_bytes() : 0;
    }
    data_bytes_ = data;
    // A columnwise copy's cols are the group's rows.
    rowwise_scales_ = groups_.scales(
        false, [&](int64_t rows, int64_t) { return make(rows).rowwise_scale_bytes(); });
    columnwise_scales_ = groups_.scales(
        true, [&](int64_t, int64_t rows) { return make(rows).columnwise_scale_bytes(); });
  }

  int64_t group_count() const { return groups_.group_count(); }
  int64_t rows() const { return groups_.rows(); }
  int64_t cols() const { return groups_.cols(); }
  OperandCopies copies() const { return copies_; }
  std::vector<int64_t> group_rows() const {
    std::vector<int64_t> rows;
    for (int64_t g = 0; g < group_count(); ++g)
      rows.push_back(groups_.group_rows(g));
    return rows;
  }
  // Group g's own layout; empty for a group without rows. Throws std::invalid_argument for a
  // group that does not exist.
  const std::optional<TensorLayout>& group(int64_t g) const { return tensors_[index(g)]; }
  GroupPlacement placement(int64_t g) const {
    return GroupPlacement{groups_.row_offset(g), groups_.group_rows(g), data_offsets_[index(g)],
                          rowwise_scales_.offset(g), columnwise_scales_.offset(g)};
  }

  // Bytes of each whole buffer: one copy's data, each copy's scales (0 for a copy not in
  // `copies`).
  int64_t data_bytes() const { return data_bytes_; }
  int64_t rowwise_scale_bytes() const { return rowwise_scales_.total_bytes(); }
  int64_t columnwise_scale_bytes() const { return columnwise_scales_.total_bytes(); }

  // Group g's copy in the whole buffers `data` and `scale`; `extra` are its tensor layout's
  // further arguments (NVFP4: the group's tensor scalars). QuantizedTensor{} for a group
  // without rows; std::logic_error (from the tensor layout) for a copy not in `copies`.
  template <typename... Extra>
  QuantizedTensor rowwise(const uint8_t* data, const uint8_t* scale, int64_t g,
                          Extra... extra) const {
    return copy(false, data, scale, g, extra...);
  }
  template <typename... Extra>
  QuantizedTensor columnwise(const uint8_t* data, const uint8_t* scale, int64_t g,
                             Extra... extra) const {
    return copy(true, data, scale, g, extra...);
  }

 private:
  template <typename... Extra>
  QuantizedTensor copy(bool columnwise, const uint8_t* data, const uint8_t* scale, int64_t g,
                       Extra... extra) const {
    const std::optional<TensorLayout>& layout = group(g);
    if (!layout)
      return QuantizedTensor{};
    const GroupPlacement at = placement(g);
    return columnwise ? layout->columnwise(data + at.data, scale + at.columnwise_scale, extra...)
                      : layout->rowwise(data + at.data, scale + at.rowwise_scale, extra...);
  }
  size_t index(int64_t g) const {
    groups_.group_rows(g);  // checks that the group exists
    return static_cast<size_t>(g);
  }

  GroupedLayout groups_;
  OperandCopies copies_;
  std::vector<std::optional<TensorLayout>> tensors_;
  std::vector<int64_t> data_offsets_;
  int64_t data_bytes_ = 0;
  GroupedScaleLayout rowwise_scales_;
  GroupedScaleLayout columnwise_scales_;
};

}  // namespace gemmscope
