#pragma once
// The high-precision (BF16) tensors one pass of a linear layer reads, filled with random
// non-zero data, plus its BF16 output; and the GEMM a training framework launches on them.
//
//   Fprop  Y  = X  · Wᵀ   reads X [tokens, in] and W [out, in]    writes Y  [tokens, out]
//   Dgrad  dX = dY · W    reads dY [tokens, out] and W [out, in]  writes dX [tokens, in]
//   Wgrad  dW = dYᵀ · X   reads dY [tokens, out] and X [tokens, in] writes dW [out, in]

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kernels/device_buffer.h"
#include "kernels/gemm_plan.h"
#include "shapes/layer_gemms.h"

namespace gemmscope {

// A BF16 tensor stored row-major [rows, cols], as a GEMM operand view.
QuantizedTensor bf16_tensor(const __nv_bfloat16* data, int64_t rows, int64_t cols);

class PassTensors {
 public:
  // Allocates and fills (asynchronously, on `stream`) the two inputs the pass reads.
  PassTensors(const LayerGemm& gemm, cudaStream_t stream);

  const LayerGemm& gemm() const { return gemm_; }
  // The inputs as stored; the one the pass does not read is empty.
  const DeviceBuffer<__nv_bfloat16>& x() const { return x_; }
  const DeviceBuffer<__nv_bfloat16>& w() const { return w_; }
  const DeviceBuffer<__nv_bfloat16>& dy() const { return dy_; }
  __nv_bfloat16* output() const { return output_.get(); }
  size_t output_count() const { return output_.size(); }

  // The BF16 GEMM in the layout frameworks launch: Fprop TN, Dgrad NN, Wgrad NT.
  GemmProblem bf16_problem() const;

 private:
  LayerGemm gemm_;
  DeviceBuffer<__nv_bfloat16> x_;
  DeviceBuffer<__nv_bfloat16> w_;
  DeviceBuffer<__nv_bfloat16> dy_;
  DeviceBuffer<__nv_bfloat16> output_;
};

}  // namespace gemmscope
