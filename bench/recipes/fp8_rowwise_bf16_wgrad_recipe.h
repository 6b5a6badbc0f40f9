#pragma once
// FP8RowwiseBF16Wgrad (make_fp8_rowwise_bf16_wgrad_recipe, bench/recipes/factories.h): torchao's
// float8 training recipe "rowwise_with_gw_hp" (torchao/float8/config.py,
// Float8LinearRecipeName.ROWWISE_WITH_GW_HP). E4M3 everywhere it quantizes, power-of-2 scales
// (round_scales_to_power_of_2), and:
//   Fprop  X per token · W per output row          FP8Rowwise's GEMM, fast accumulation
//   Dgrad  dY per token · W one tensorwise scale   its scalar repeated into the outer vector
//                                                  (preprocess_addmm), split accumulation
//   Wgrad  dYᵀ · X in BF16                         ScalingType.DISABLED for both: BF16's GEMM
// Where the two recipes scale a copy alike, this one's quantizer is FP8Rowwise's.

#include "bench/operand_source.h"

namespace gemmscope {

// How a copy's outer-vector scales are computed.
enum class OuterVecScaling {
  kPerRow,      // each row of the copy its own scale (quant/fp8/rowwise.h)
  kTensorwise,  // one scale for the tensor, repeated for every row
                // (quant/fp8/tensorwise_outer_vec.h; grouped: quant/fp8/grouped.h)
};

// The scaling of `role`'s rowwise or columnwise copy as FP8RowwiseBF16Wgrad's FP8 GEMMs read
// it; its quantizers follow this. Only the weight's columnwise copy (Dgrad's) is tensorwise.
// X's and dY's columnwise copies are read by no GEMM of the recipe (Wgrad is BF16): per row,
// as FP8Rowwise would make them.
OuterVecScaling fp8_rowwise_bf16_wgrad_scaling(TensorRole role, bool columnwise);

}  // namespace gemmscope
