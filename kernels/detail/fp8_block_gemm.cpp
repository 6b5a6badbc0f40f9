#include "kernels/detail/fp8_block_gemm.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "quant/base/unsupported.h"
#include "quant/format_names.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope::detail {
namespace {

constexpr int64_t kOutputAlignment = 8;  // BF16 elements in TMA's 16 bytes

bool aligned(const void* pointer, uintptr_t bytes) {
  return reinterpret_cast<uintptr_t>(pointer) % bytes == 0;
}

}  // namespace

Fp8BlockGemm check_fp8_block_gemm(const GemmProblem& problem, const std::string& who) {
  const QuantizedTensor& left = problem.left.tensor;
  const QuantizedTensor& right = problem.right.tensor;
  const std::string prefix = who + ": ";
  if (left.format != ElementFormat::kE4M3 || right.format != ElementFormat::kE4M3) {
    throw Unsupported(prefix + "runs FP8Block's E4M3 x E4M3 operands only; these are " +
                      to_string(left.format) + " x " + to_string(right.format));
  }
  const bool block_scales = left.scale_layout == ScaleLayout::kVec128 &&
                            (right.scale_layout == ScaleLayout::kBlock128x128 ||
                             right.scale_layout == ScaleLayout::kVec128);
  if (!block_scales) {
    throw Unsupported(prefix +
                      "takes FP8Block's scales only, 1x128 (Vec128) left with 128x128 or 1x128 "
                      "right; these are " +
                      to_string(left.scale_layout) + " x " + to_string(right.scale_layout));
  }
  if (!problem.left.k_major || !problem.right.k_major) {
    throw Unsupported(prefix +
                      "needs both operands K-major (TN), the only layout of Hopper's FP8 tensor "
                      "cores; the " +
                      (problem.left.k_major ? "right" : "left") + " operand is not");
  }
  if (left.tensor_scale != nullptr || right.tensor_scale != nullptr)
    throw Unsupported(prefix + "takes no second, per-tensor scaling level (NVFP4's)");
  if (problem.fast_accumulation) {
    throw Unsupported(prefix +
                      "fast accumulation does not apply to block scales (the kernel promotes to "
                      "FP32 at every 128-deep scale block)");
  }

  const int64_t m = problem.left.outer(), n = problem.right.outer();
  const int64_t k = problem.left.contraction();
  if (problem.right.contraction() != k) {
    throw std::invalid_argument(prefix + "contraction sizes differ: left " + std::to_string(k) +
                                ", right " + std::to_string(problem.right.contraction()));
  }
  if (left.data == nullptr || right.data == nullptr || left.scale == nullptr ||
      right.scale == nullptr || problem.output == nullptr) {
    throw std::invalid_argument(prefix + "an operand, its scales or the output is missing");
  }
  const std::string dims =
      prefix + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ": ";
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  const int64_t right_scales = right.scale_layout == ScaleLayout::kBlock128x128
                                   ? block128_scale_count(n, k)
                                   : vec128_scale_count(n, k);
  if (m > kIntMax || n > kIntMax || k > kIntMax || vec128_scale_count(m, k) > kIntMax ||
      right_scales > kIntMax) {
    throw Unsupported(dims + "its problem shapes and scale layouts are 32-bit");
  }
  if (k % kFp8GemmContractionMultiple != 0) {
    throw Unsupported(dims + "K must be a multiple of " +
                      std::to_string(kFp8GemmContractionMultiple) + " (16-byte rows for TMA)");
  }
  if (n % kOutputAlignment != 0) {
    throw Unsupported(dims + "N must be a multiple of " + std::to_string(kOutputAlignment) +
                      " (16-byte BF16 output rows for TMA)");
  }
  if (!aligned(left.data, 16) || !aligned(right.data, 16) || !aligned(problem.output, 16) ||
      !aligned(left.scale, 16)) {
    throw Unsupported(dims +
                      "TMA needs 16-byte aligned operands, output and left scales (1x128 scales "
                      "are TMA loads)");
  }
  if (!aligned(right.scale, sizeof(float)))
    throw Unsupported(dims + "the right operand's scales are not FP32-aligned");

  Fp8BlockGemm checked;
  checked.scaling =
      right.scale_layout == ScaleLayout::kBlock128x128 ? BlockScaling::k1d2d : BlockScaling::k1d1d;
  checked.m = static_cast<int>(m);
  checked.n = static_cast<int>(n);
  checked.k = static_cast<int>(k);
  checked.a = left.data;
  checked.b = right.data;
  checked.d = problem.output;
  checked.scale_a = static_cast<const float*>(left.scale);
  checked.scale_b = static_cast<const float*>(right.scale);
  return checked;
}

}  // namespace gemmscope::detail
