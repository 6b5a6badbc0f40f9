#pragma once
// The high-precision (BF16) tensors one pass of a linear layer reads, filled with random
// non-zero data, plus its BF16 output; and the GEMM a training framework launches on them.
//
//   Fprop  Y  = X  · Wᵀ   reads X [tokens, in] and W [out, in]    writes Y  [tokens, out]
//   Dgrad  dX = dY · W    reads dY [tokens, out] and W [out, in]  writes dX [tokens, in]
//   Wgrad  dW = dYᵀ · X   reads dY [tokens, out] and X [tokens, in] writes dW [out, in]
//
// A grouped (mixture-of-experts) layer holds one weight per expert and its rows sorted by
// expert, as frameworks permute them before the expert GEMMs: X and dY are one tensor of all
// routed rows, expert after expert, W (and Wgrad's output) one [out, in] block per expert.
// Group g is expert g's slice of each. A dense layer is one group holding every row.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/gemm_problem.h"
#include "shapes/layer_gemms.h"

namespace gemmscope {

// A BF16 tensor stored row-major [rows, cols], as a GEMM operand view.
QuantizedTensor bf16_tensor(const __nv_bfloat16* data, int64_t rows, int64_t cols);

class PassTensors {
 public:
  // Allocates and fills (asynchronously, on `stream`) the two inputs the pass reads. A grouped
  // gemm's experts get their routed rows rounded up to a multiple of `row_alignment`, as
  // frameworks pad them for the GEMM (the padding is random data too, and counted by
  // padded_rows()).
  PassTensors(const LayerGemm& gemm, int64_t row_alignment, cudaStream_t stream);

  const LayerGemm& gemm() const { return gemm_; }
  int64_t group_count() const { return static_cast<int64_t>(group_rows_.size()); }
  // Group g's linear layer: its (padded) rows, in and out features.
  LinearDims group_dims(int64_t g) const;
  // Rows added by padding, over all groups (0 for a dense layer).
  int64_t padded_rows() const { return padded_rows_; }
  // Each group's (padded) rows, one entry for a dense layer; they sum to the rows of X and dY.
  const std::vector<int64_t>& group_rows() const { return group_rows_; }

  // Group g's inputs as stored (nullptr for the one the pass does not read) and output.
  const __nv_bfloat16* x(int64_t g) const;
  const __nv_bfloat16* w(int64_t g) const;
  const __nv_bfloat16* dy(int64_t g) const;
  __nv_bfloat16* output(int64_t g) const;

  // Group g's BF16 GEMM in the layout frameworks launch: Fprop TN, Dgrad NN, Wgrad NT.
  GemmProblem bf16_problem(int64_t g) const;
  // Every group's.
  std::vector<GemmProblem> bf16_problems() const;

 private:
  LayerGemm gemm_;
  std::vector<int64_t> group_rows_;   // padded
  std::vector<int64_t> row_offsets_;  // first row of each group in X, dY and row outputs
  int64_t padded_rows_ = 0;
  DeviceBuffer<__nv_bfloat16> x_;
  DeviceBuffer<__nv_bfloat16> w_;
  DeviceBuffer<__nv_bfloat16> dy_;
  DeviceBuffer<__nv_bfloat16> output_;
};

}  // namespace gemmscope
