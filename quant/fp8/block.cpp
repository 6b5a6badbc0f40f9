#include "quant/fp8/block.h"

#include "quant/fp8/detail/argument_checks.h"
#include "quant/fp8/detail/tile_cast.h"

namespace gemmscope {
namespace {

void launch_block_cast(const char* function, detail::TileScaling scaling,
                       const __nv_bfloat16* input, int64_t rows, int64_t cols,
                       const Fp8BlockTargets& targets, cudaStream_t stream) {
  detail::require_not_null(function, "input", input);
  detail::require_positive(function, "rows", rows);
  detail::require_positive(function, "cols", cols);
  detail::require_some_copy(function, targets.rowwise, targets.columnwise);
  if (targets.rowwise != nullptr) {
    detail::require_not_null(function, "rowwise_scale_inv", targets.rowwise_scale_inv);
  }
  if (targets.columnwise != nullptr) {
    detail::require_not_null(function, "columnwise_scale_inv", targets.columnwise_scale_inv);
  }

  detail::TileCastArgs args;
  args.input = input;
  args.rows = rows;
  args.cols = cols;
  args.format = ElementFormat::kE4M3;
  args.scaling = scaling;
  args.rowwise = targets.rowwise;
  args.columnwise = targets.columnwise;
  args.rowwise_scale_inv = targets.rowwise_scale_inv;
  args.columnwise_scale_inv = targets.columnwise_scale_inv;
  detail::launch_tile_cast(args, stream);
}

}  // namespace

void quantize_fp8_1x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                        const Fp8BlockTargets& targets, cudaStream_t stream) {
  launch_block_cast("quantize_fp8_1x128", detail::TileScaling::kVec128, input, rows, cols, targets,
                    stream);
}

void quantize_fp8_128x128(const __nv_bfloat16* input, int64_t rows, int64_t cols,
                          const Fp8BlockTargets& targets, cudaStream_t stream) {
  launch_block_cast("quantize_fp8_128x128", detail::TileScaling::kBlock128x128, input, rows, cols,
                    targets, stream);
}

}  // namespace gemmscope
