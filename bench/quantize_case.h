#pragma once
// Quantization cases: each BF16 tensor the workload's GEMMs read (X, W, dY of every op),
// quantized by a recipe into the rowwise copy, the columnwise copy or both, and timed alone:
//   {Precision}/Quantize/{x|w|dy}/{rowwise|columnwise|both}/R:{rows}/C:{cols}
// A grouped (expert) operand is quantized whole, every expert with its own scales, as an
// autocast expert case quantizes it (bench/operand_source.h):
//   {Precision}/Quantize/{x|w|dy}/{rowwise|columnwise|both}/G:{groups}/R:{rows}/C:{cols}
// with R the rows of all groups: the routed rows, each expert's padded as the recipe pads them
// (X, dY), or the G stacked weights' rows (W).
// Counters: GBps (bytes read + written over the time) and pct_of_copy_bw (against the
// device-to-device copy bandwidth measured at start); the kernel timer's `kernels` says how
// many launches one quantization takes (for a grouped operand: whether it grows with G).

#include <memory>
#include <string>
#include <vector>

#include "bench/operand_quantizer.h"
#include "bench/operand_source.h"
#include "bench/recipes/recipe.h"
#include "bench/timing/timed_work.h"
#include "shapes/workload.h"

namespace gemmscope {

struct QuantizeSpec {
  TensorRole role = TensorRole::kActivation;
  int64_t rows = 0;
  int64_t cols = 0;
  OperandCopies copies = OperandCopies::kRowwise;
  std::vector<int64_t> group_rows;  // each group's rows (summing to rows); empty: one tensor
};

// Every distinct tensor the workload's passes read, in each of the three copy layouts; a
// grouped operand's experts' rows padded to `group_row_alignment` (Recipe::group_row_alignment).
std::vector<QuantizeSpec> quantize_specs(const Workload& workload, int64_t group_row_alignment);

// "rowwise", "columnwise", "both".
const char* copies_token(OperandCopies copies);

std::string quantize_case_name(const std::string& precision, const QuantizeSpec& spec);

// Fills a random BF16 source and builds `recipe`'s quantizer for it; `stacked_row_scales`: a
// grouped FP8Block operand's quantizer writes its stacked 1x128 scales too, as the GEMM cases'
// quantizers of the same run do (OperandSource::stacked_row_scales).
std::unique_ptr<TimedWork> prepare_quantize_case(const Recipe& recipe, const QuantizeSpec& spec,
                                                 bool stacked_row_scales, cudaStream_t stream);

}  // namespace gemmscope
