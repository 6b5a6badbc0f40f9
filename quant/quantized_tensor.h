#pragma once
// A non-owning view of one GEMM operand as a quantizer wrote it and a GEMM reads it: data in
// some element format plus its scales in the layout cuBLASLt expects. Every recipe (FP8,
// MXFP8, NVFP4) describes its operands with this one type, so kernels/ can build a cuBLASLt
// plan, dequantize for verification or emulate a GEMM without knowing the recipe.
//
// Orientation: the operand is row-major [rows, cols] and the GEMM contracts along `cols`
// (cuBLASLt's "TN": both operands K-major). A columnwise copy of a tensor is simply another
// QuantizedTensor whose rows and cols are the original's cols and rows.

#include <cstdint>

namespace gemmscope {

enum class ElementFormat {
  kBF16,  // not quantized
  kE4M3,  // FP8, 4 exponent bits (activations, weights; gradients in block/MX recipes)
  kE5M2,  // FP8, 5 exponent bits (gradients in the tensorwise HYBRID recipes)
  kE2M1,  // FP4, two values per byte, the first in the low nibble
};

enum class ScaleLayout {
  kNone,          // BF16: no scale
  kTensor,        // one FP32 dequantization scale (cuBLASLt SCALAR_32F)
  kVec128,        // FP32 per 1x128 along cols: [ceil(cols/128)][roundup(rows,4)], rows fastest
  kBlock128x128,  // FP32 per 128x128: [ceil(rows/128)][roundup(ceil(cols/128),4)]
  kOuterVec,      // FP32 per row, over all its cols: [rows] (cuBLASLt OUTER_VEC_32F; FP8Rowwise)
  kVec32Ue8m0,    // MXFP8: E8M0 per 1x32 along cols, swizzled 128x4 tiles
  kVec16Ue4m3,    // NVFP4: E4M3 per 1x16 along cols, swizzled 128x4 tiles, plus `tensor_scale`
};

struct QuantizedTensor {
  const void* data = nullptr;
  ElementFormat format = ElementFormat::kBF16;
  int64_t rows = 0;
  int64_t cols = 0;
  // Dequantization scales (value = stored element * scale), laid out per `scale_layout`.
  const void* scale = nullptr;
  ScaleLayout scale_layout = ScaleLayout::kNone;
  // NVFP4 only: the FP32 per-tensor dequantization factor, which the GEMM folds into alpha.
  const float* tensor_scale = nullptr;
  // A kVec128 copy of one group of a grouped operand may come with its scales a second time,
  // stacked: every group's rows in one FP32 [ceil(cols/128)][stacked_scale_stride] tensor, this
  // group's at its first row (stacked_scale points there), no padding between groups. That is
  // the layout m-grouped kernels read (DeepGEMM's: one TMA descriptor over all experts' rows);
  // the per-group `scale` is cuBLASLt's. Null where the quantizer did not write it.
  const float* stacked_scale = nullptr;
  int64_t stacked_scale_stride = 0;
};

}  // namespace gemmscope
