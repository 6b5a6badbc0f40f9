#pragma once
// A GEMM case on the BF16 training tensors as they are: BF16's every pass, and the pass a
// quantizing recipe keeps in BF16 (FP8RowwiseBF16Wgrad's Wgrad). The GEMM reads them in the
// layouts frameworks launch (Fprop TN, Dgrad NN, Wgrad NT), FP32 accumulation, BF16 output.

#include <cstdint>
#include <memory>

#include "bench/case_spec.h"
#include "bench/gemm_case.h"
#include "bench/recipes/recipe.h"

namespace gemmscope {

// `row_alignment`: what a grouped case's experts' rows are padded to (PassTensors), so that a
// recipe's BF16 pass reads the same padded tensors as its quantized passes.
std::unique_ptr<GemmCase> make_bf16_gemm_case(const CaseSpec& spec, const RecipeContext& context,
                                              int64_t row_alignment);

}  // namespace gemmscope
