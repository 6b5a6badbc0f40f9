#include "bench/pass_tensors.h"

#include <stdexcept>

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

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

const __nv_bfloat16* offset(const DeviceBuffer<__nv_bfloat16>& buffer, int64_t elements) {
  return buffer.get() == nullptr ? nullptr : buffer.get() + elements;
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

PassTensors::PassTensors(const LayerGemm& gemm, int64_t row_alignment, cudaStream_t stream)
    : gemm_(gemm) {
  if (row_alignment < 1)
    throw std::invalid_argument("PassTensors: row_alignment must be positive");
  const LinearDims& d = gemm.dims;
  if (gemm.grouped()) {
    for (const int64_t rows : gemm.group_rows)
      group_rows_.push_back(round_up(rows, row_alignment));
  } else {
    group_rows_ = {d.tokens};
  }
  int64_t total_rows = 0;
  for (const int64_t rows : group_rows_) {
    row_offsets_.push_back(total_rows);
    total_rows += rows;
  }
  padded_rows_ = total_rows - d.tokens;
  const int64_t groups = group_count();
  const Pass pass = gemm.pass;
  x_ = random_tensor(pass != Pass::kDgrad, total_rows, d.in_features, kSeedX, stream);
  w_ = random_tensor(pass != Pass::kWgrad, groups * d.out_features, d.in_features, kSeedW, stream);
  dy_ = random_tensor(pass != Pass::kFprop, total_rows, d.out_features, kSeedDy, stream);
  const int64_t output_elements = pass == Pass::kWgrad   ? groups * d.out_features * d.in_features
                                  : pass == Pass::kFprop ? total_rows * d.out_features
                                                         : total_rows * d.in_features;
  output_ = DeviceBuffer<__nv_bfloat16>(static_cast<size_t>(output_elements));
}

LinearDims PassTensors::group_dims(int64_t g) const {
  return {group_rows_.at(static_cast<size_t>(g)), gemm_.dims.in_features, gemm_.dims.out_features};
}

const __nv_bfloat16* PassTensors::x(int64_t g) const {
  return offset(x_, row_offsets_.at(static_cast<size_t>(g)) * gemm_.dims.in_features);
}

const __nv_bfloat16* PassTensors::w(int64_t g) const {
  return offset(w_, g * gemm_.dims.out_features * gemm_.dims.in_features);
}

const __nv_bfloat16* PassTensors::dy(int64_t g) const {
  return offset(dy_, row_offsets_.at(static_cast<size_t>(g)) * gemm_.dims.out_features);
}

__nv_bfloat16* PassTensors::output(int64_t g) const {
  const LinearDims& d = gemm_.dims;
  const int64_t row = row_offsets_.at(static_cast<size_t>(g));
  switch (gemm_.pass) {
    case Pass::kFprop:
      return output_.get() + row * d.out_features;
    case Pass::kDgrad:
      return output_.get() + row * d.in_features;
    case Pass::kWgrad:
      return output_.get() + g * d.out_features * d.in_features;
  }
  throw std::logic_error("unknown pass");
}

GemmProblem PassTensors::bf16_problem(int64_t g) const {
  const LinearDims d = group_dims(g);
  const QuantizedTensor x = bf16_tensor(this->x(g), d.tokens, d.in_features);
  const QuantizedTensor w = bf16_tensor(this->w(g), d.out_features, d.in_features);
  const QuantizedTensor dy = bf16_tensor(this->dy(g), d.tokens, d.out_features);
  GemmProblem problem;
  problem.output = output(g);
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

std::vector<GemmProblem> PassTensors::bf16_problems() const {
  std::vector<GemmProblem> problems;
  for (int64_t g = 0; g < group_count(); ++g)
    problems.push_back(bf16_problem(g));
  return problems;
}

}  // namespace gemmscope
