#pragma once
// The per-tensor FP32 scalars of one NVFP4 quantization, kept together in device memory so that
// one small memset resets both amaxes in the stream before the amax kernel runs. Nothing here
// is read on the host while timing: the quantize kernel reads the amaxes, the GEMM's alpha
// the tensor scales.

namespace gemmscope {

struct Nvfp4TensorScalars {
  // max |x| over the tensor (NaN if it holds a NaN).
  float amax_rowwise;
  // The same, or, when the columnwise copy is Hadamard-transformed, max |y| over the
  // transformed tensor: TransformerEngine's "post-RHT amax", so that the transformed values
  // use the full E4M3 x E2M1 range.
  float amax_columnwise;
  // Each copy's per-tensor dequantization factor 1 / S_enc (QuantizedTensor::tensor_scale).
  float tensor_scale_rowwise;
  float tensor_scale_columnwise;
};

}  // namespace gemmscope
