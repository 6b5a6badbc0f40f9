#pragma once
// One GEMM as every provider takes it, in the row-major terms a training framework uses:
//
//   output[P, Q] (row-major BF16) = alpha · left[P, K] · right[K, Q]
//
// each operand a quantized (or BF16) tensor as a quantizer wrote it, stored either K-major
// (row-major [outer, K]) or not ([K, outer]). alpha is 1, or the product of the operands'
// per-tensor factors (QuantizedTensor::tensor_scale).

#include <cuda_bf16.h>

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

struct GemmOperand {
  QuantizedTensor tensor;  // as stored: row-major [tensor.rows, tensor.cols]
  bool k_major = true;     // true: stored [outer, K]; false: stored [K, outer]

  int64_t outer() const { return k_major ? tensor.rows : tensor.cols; }
  int64_t contraction() const { return k_major ? tensor.cols : tensor.rows; }
};

struct GemmProblem {
  GemmOperand left;                 // [P, K]
  GemmOperand right;                // [K, Q]
  __nv_bfloat16* output = nullptr;  // [P, Q], row-major
  bool fast_accumulation = false;   // FP8 only: cuBLASLt's FAST_ACCUM (no periodic promotion)
};

}  // namespace gemmscope
