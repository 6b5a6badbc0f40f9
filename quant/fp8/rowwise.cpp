#include "quant/fp8/rowwise.h"

#include <cstdint>

#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/detail/line_amax.h"
#include "quant/fp8/detail/row_cast.h"
#include "quant/fp8/detail/tile_cast.h"

namespace gemmscope {
namespace {

constexpr size_t kAlignment = 16;

size_t aligned(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

// The one-pass cast takes the rowwise copy alone, of rows that fit it.
bool one_pass(int64_t cols, bool columnwise) {
  return !columnwise && detail::row_cast_fits(cols);
}

bool aligned_to(const void* pointer, size_t bytes) {
  return reinterpret_cast<uintptr_t>(pointer) % bytes == 0;
}

}  // namespace

size_t fp8_rowwise_workspace_bytes(int64_t rows, int64_t cols) {
  return aligned(static_cast<size_t>(rows) * sizeof(uint32_t)) +
         aligned(static_cast<size_t>(cols) * sizeof(uint32_t));
}

void require_fp8_rowwise_arguments(const char* function, const __nv_bfloat16* input, int64_t rows,
                                   int64_t cols, const Fp8RowwiseTargets& targets,
                                   const void* workspace) {
  detail::require_not_null(function, "input", input);
  detail::require_positive(function, "rows", rows);
  detail::require_positive(function, "cols", cols);
  detail::require_some_copy(function, targets.rowwise, targets.columnwise);
  detail::require_not_null(function, "workspace", workspace);
  if (targets.rowwise != nullptr)
    detail::require_not_null(function, "rowwise_scale_inv", targets.rowwise_scale_inv);
  if (targets.columnwise != nullptr)
    detail::require_not_null(function, "columnwise_scale_inv", targets.columnwise_scale_inv);
}

void quantize_fp8_rowwise(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          const Fp8RowwiseTargets& targets, void* workspace, cudaStream_t stream) {
  require_fp8_rowwise_arguments("quantize_fp8_rowwise", input, rows, cols, targets, workspace);

  // The one-pass cast's 16-byte loads and 8-byte stores; cudaMalloc'd buffers always qualify.
  if (one_pass(cols, targets.columnwise != nullptr) && aligned_to(input, 16) &&
      aligned_to(targets.rowwise, 8)) {
    detail::launch_row_cast(input, rows, cols, targets.rowwise, targets.rowwise_scale_inv, stream);
    return;
  }

  auto* row_amax = static_cast<uint32_t*>(workspace);
  auto* col_amax = reinterpret_cast<uint32_t*>(
      static_cast<uint8_t*>(workspace) + aligned(static_cast<size_t>(rows) * sizeof(uint32_t)));
  uint32_t* row_wanted = targets.rowwise != nullptr ? row_amax : nullptr;
  uint32_t* col_wanted = targets.columnwise != nullptr ? col_amax : nullptr;
  // The amaxes the pass merges into start at zero: one zeroing over the wanted ones (with both,
  // the alignment gap between them too), where one a copy would cost a second launch. The pass
  // and the cast after it each start while the kernel before them ends (line_amax.h).
  uint32_t* first = row_wanted != nullptr ? row_wanted : col_wanted;
  uint32_t* end = col_wanted != nullptr ? col_wanted + cols : row_wanted + rows;
  detail::launch_zero_line_amax(first, end - first, stream);
  detail::launch_line_amax(input, rows, cols, row_wanted, col_wanted, stream);

  detail::TileCastArgs args;
  args.input = input;
  args.rows = rows;
  args.cols = cols;
  args.format = ElementFormat::kE4M3;
  args.scaling = detail::TileScaling::kRowwise;
  args.rowwise = targets.rowwise;
  args.columnwise = targets.columnwise;
  args.rowwise_scale_inv = targets.rowwise_scale_inv;
  args.columnwise_scale_inv = targets.columnwise_scale_inv;
  args.row_amax_bits = row_amax;
  args.col_amax_bits = col_amax;
  detail::launch_tile_cast(args, stream);
}

int fp8_rowwise_input_reads(int64_t cols, bool /*rowwise*/, bool columnwise) {
  return one_pass(cols, columnwise) ? 1 : 2;
}

size_t fp8_rowwise_launches(int64_t cols, bool /*rowwise*/, bool columnwise) {
  // One zeroing (the row and column amaxes are adjacent in the workspace), the amax pass, the cast.
  return one_pass(cols, columnwise) ? 1 : 3;
}

}  // namespace gemmscope
