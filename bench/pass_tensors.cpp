#include "bench/pass_tensors.h"

#include "kernels/random_fill.h"

namespace gemmscope {
namespace {

// Fixed seeds per role: every precision of a case multiplies the same data.
constexpr uint64_t kSeedX = 0x5eed0001;
constexpr uint64_t kSeedW = 0x5eed0002;
constexpr uint64_t kSeedDy = 0x5eed0003;

DeviceBuffer<__nv_bfloat16> random_tensor(bool needed, int64_t rows, int64_t cols, uint64_t seed,
                                          cudaStream_t stream) {
  if (!needed)
    return {};
  DeviceBuffer<__nv_bfloat16> buffer(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  fill_normal(buffer.get(), buffer.size(), seed, 0.0f, 1.0f, stream);
  return buffer;
}

}  // namespace

QuantizedTensor bf16_tensor(const __nv_bfloat16* data, int64_t rows, int64_t cols) {
  QuantizedTensor t;
  t.data = data;
  t.format = ElementFormat::kBF16;
  t.rows = rows;
  t.cols = cols;
  return t;
}

PassTensors::PassTensors(const LayerGemm& gemm, cudaStream_t stream) : gemm_(gemm) {
  const LinearDims& d = gemm.dims;
  const Pass pass = gemm.pass;
  x_ = random_tensor(pass != Pass::kDgrad, d.tokens, d.in_features, kSeedX, stream);
  w_ = random_tensor(pass != Pass::kWgrad, d.out_features, d.in_features, kSeedW, stream);
  dy_ = random_tensor(pass != Pass::kFprop, d.tokens, d.out_features, kSeedDy, stream);
  const GemmShape& s = gemm.shape;
  output_ = DeviceBuffer<__nv_bfloat16>(static_cast<size_t>(s.m) * static_cast<size_t>(s.n));
}

GemmProblem PassTensors::bf16_problem() const {
  const LinearDims& d = gemm_.dims;
  const QuantizedTensor x = bf16_tensor(x_.get(), d.tokens, d.in_features);
  const QuantizedTensor w = bf16_tensor(w_.get(), d.out_features, d.in_features);
  const QuantizedTensor dy = bf16_tensor(dy_.get(), d.tokens, d.out_features);
  GemmProblem problem;
  problem.output = output_.get();
  switch (gemm_.pass) {
    case Pass::kFprop:  // Y[tokens, out] = X[tokens, in] · Wᵀ, W stored [out, in]
      problem.left = {x, true};
      problem.right = {w, true};
      break;
    case Pass::kDgrad:  // dX[tokens, in] = dY[tokens, out] · W, W stored [out=K, in]
      problem.left = {dy, true};
      problem.right = {w, false};
      break;
    case Pass::kWgrad:  // dW[out, in] = dYᵀ · X, both stored [tokens=K, ...]
      problem.left = {dy, false};
      problem.right = {x, false};
      break;
  }
  return problem;
}

}  // namespace gemmscope
