#pragma once
// Which copies of a BF16 tensor a block-scaled quantizer writes. A GEMM contracts along the
// columns of both (row-major, "TN") operands, so a tensor read along its rows by one pass and
// along its columns by another needs two quantized copies:
//   - rowwise: the tensor as it is, [rows, cols], blocks along cols;
//   - columnwise: its transpose, [cols, rows], blocks along the original rows.
// Fprop reads X and W rowwise; Dgrad dY rowwise and W columnwise; Wgrad dY and X columnwise.
// Both copies come from the BF16 values, never one from the other: they are numerically
// different (their blocks run in different directions).

namespace gemmscope {

enum class OperandCopies { kRowwise, kColumnwise, kBoth };

inline bool has_rowwise(OperandCopies copies) {
  return copies != OperandCopies::kColumnwise;
}
inline bool has_columnwise(OperandCopies copies) {
  return copies != OperandCopies::kRowwise;
}

}  // namespace gemmscope
