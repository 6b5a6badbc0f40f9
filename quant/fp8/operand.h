#pragma once
// What a benchmark recipe needs to hold one FP8 operand: how many bytes and scale slots each
// copy takes, and the QuantizedTensor views a GEMM plan reads. Non-owning: the caller allocates
// (kernels/DeviceBuffer) and the quantizers in quant/fp8/tensorwise.h, quant/fp8/delayed.h and
// quant/fp8/block.h fill the buffers.
//
//   layout kTensor        FP8Current / FP8Delayed, E4M3 or E5M2 (gradients), one FP32 scale_inv
//                         shared by both copies
//   layout kVec128        FP8Block activations and gradients (1x128 along cols), E4M3
//   layout kBlock128x128  FP8Block weights (128x128), E4M3
//   layout kOuterVec      FP8Rowwise, every operand (one scale per row of each copy), E4M3
//
// The rowwise copy is [rows, cols]; the columnwise copy is its transpose [cols, rows], quantized
// along its own cols (the original rows), which is what Hopper's TN-only FP8 GEMMs read for
// Dgrad and Wgrad.
//
// Sizes: the quantizers take any positive rows and cols. cuBLASLt's FP8 GEMMs additionally need
// the contraction dimension (cols of the copy a GEMM reads, also its leading dimension in bytes)
// to be a multiple of 16; the GEMM plan checks that with require_fp8_gemm_operand, because only
// it knows which copy it contracts along which dimension.

#include <cstdint>

#include "quant/quantized_tensor.h"

namespace gemmscope {

constexpr int64_t kFp8GemmContractionMultiple = 16;

struct Fp8OperandLayout {
  // Throws std::invalid_argument naming the value: rows or cols not positive, a format other
  // than E4M3/E5M2, E5M2 with a block layout, or a layout that is not an FP8 one.
  Fp8OperandLayout(int64_t rows, int64_t cols, ElementFormat format, ScaleLayout scale_layout);

  int64_t rows;
  int64_t cols;
  ElementFormat format;
  ScaleLayout scale_layout;

  // Bytes of one copy (rowwise or columnwise): one byte per element.
  int64_t data_bytes() const { return rows * cols; }
  // FP32 scale slots of each copy, padding included; 1 for kTensor.
  int64_t rowwise_scale_count() const;
  int64_t columnwise_scale_count() const;

  QuantizedTensor rowwise(const void* data, const float* scale_inv) const;
  QuantizedTensor columnwise(const void* data, const float* scale_inv) const;
};

// Throws gemmscope::Unsupported naming the value unless `operand` is FP8 with cols a multiple
// of kFp8GemmContractionMultiple (the contraction dimension of a K-major operand).
void require_fp8_gemm_operand(const QuantizedTensor& operand);

}  // namespace gemmscope
