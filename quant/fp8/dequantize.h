#pragma once
// FP8 (E4M3, E5M2) dequantization to FP32 for the scale layouts of the FP8 recipes: kTensor,
// kVec128, kBlock128x128. Reached through dequantize() in dequantize.h.

#include <cuda_runtime.h>

#include "quant/quantized_tensor.h"

namespace gemmscope {

// out[r * q.cols + c] = fp8 value * scale of (r, c), one FP32 multiply rounded to nearest.
// Throws std::invalid_argument naming the format, layout or size it cannot take.
void dequantize_fp8(const QuantizedTensor& q, float* out, cudaStream_t stream);

}  // namespace gemmscope
