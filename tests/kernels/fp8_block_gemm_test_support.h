#pragma once
// What the GPU tests of the dense FP8Block GEMMs outside cuBLASLt (kernels/cutlass/dense_gemm.h,
// kernels/deepgemm/dense_gemm.h) share: operands from FP8Block's own quantizers on fresh random
// data whose magnitude changes from block to block (so a scale read from the wrong slot shows),
// a NaN-poisoned, guarded output, the reference check, and the shapes to run; and, for the
// refusal tests, problems whose pointers are never dereferenced.

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"
#include "kernels/reference/error.h"
#include "quant/base/cuda_check.h"
#include "quant/fp8/block.h"
#include "quant/fp8/operand.h"
#include "tests/kernels/cutlass_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope::testing {

// As bench/recipes/fp8_recipe.h: the BF16 output's rounding.
inline constexpr double kBlockGemmTolerance = 4e-3;

// One K-major E4M3 operand [rows, k], quantized by quant/fp8/block.h.
class BlockOperand {
 public:
  BlockOperand(int64_t rows, int64_t k, ScaleLayout layout)
      : layout_(rows, k, ElementFormat::kE4M3, layout),
        input_(static_cast<size_t>(rows * k)),
        data_(static_cast<size_t>(layout_.data_bytes())),
        scales_(static_cast<size_t>(layout_.rowwise_scale_count())) {}

  // random_bf16(seed) times `magnitude`, times a power of two from 1/4 to 4 that changes with
  // every 128-row and every 128-column block, so that neighbouring scale slots differ; then
  // quantized. (A wider range would hide the small blocks in the relative Frobenius error.)
  void quantize(uint32_t seed, float magnitude, cudaStream_t stream) {
    const int64_t rows = layout_.rows, cols = layout_.cols;
    std::vector<__nv_bfloat16> values = random_bf16(rows, cols, seed);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int exponent = static_cast<int>((r / 128 * 3 + c / 128) % 5) - 2;
        __nv_bfloat16& v = values[r * cols + c];
        v = __float2bfloat16(__bfloat162float(v) * magnitude * std::ldexp(1.0f, exponent));
      }
    }
    CUDA_CHECK(cudaMemcpyAsync(input_.get(), values.data(), input_.bytes(), cudaMemcpyHostToDevice,
                               stream));
    const Fp8BlockTargets targets{data_.get(), scales_.get(), nullptr, nullptr};
    if (layout_.scale_layout == ScaleLayout::kVec128) {
      quantize_fp8_1x128(input_.get(), rows, cols, targets, stream);
    } else {
      quantize_fp8_128x128(input_.get(), rows, cols, targets, stream);
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `values` ends here
  }

  QuantizedTensor tensor() const { return layout_.rowwise(data_.get(), scales_.get()); }

 private:
  Fp8OperandLayout layout_;
  DeviceBuffer<__nv_bfloat16> input_;
  DeviceBuffer<uint8_t> data_;
  DeviceBuffer<float> scales_;
};

struct GemmShape {
  int64_t m, k, n;
};

inline std::string dims(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
}

// output[m, n] = left[m, k] · right[n, k]ᵀ, both K-major.
class DenseCase {
 public:
  // `right`: the right operand's scales, kBlock128x128 (1D2D) or kVec128 (1D1D).
  DenseCase(const GemmShape& shape, ScaleLayout right, cudaStream_t stream)
      : shape_(shape),
        left_(shape.m, shape.k, ScaleLayout::kVec128),
        right_(shape.n, shape.k, right),
        output_(static_cast<size_t>(shape.m * shape.n)) {
    quantize(1.0f, stream);
  }

  void quantize(float left_magnitude, cudaStream_t stream) {
    left_.quantize(11, left_magnitude, stream);
    right_.quantize(12, 0.25f, stream);
  }

  GemmProblem problem() const {
    return {{left_.tensor(), true}, {right_.tensor(), true}, output_.get(), false};
  }

  // Poisons the output, runs `gemm` and checks the output against the reference and its guard.
  void expect_match(const GroupedGemm& gemm, const char* run, cudaStream_t stream) const {
    CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, output_.size() * sizeof(__nv_bfloat16),
                               stream));  // NaN in BF16
    gemm.run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const double error = error_against_reference(problem(), output_.get(), stream);
    EXPECT_LE(error, kBlockGemmTolerance)
        << run << " run of " << gemm.algorithm() << " on " << dims(shape_) << ": relative error "
        << error << " (NaN: an output element was not written)";
    EXPECT_TRUE(output_.guard_intact())
        << gemm.algorithm() << " on " << dims(shape_) << " wrote past the output's end";
  }

 private:
  GemmShape shape_;
  BlockOperand left_;
  BlockOperand right_;
  PoisonedBuffer<__nv_bfloat16> output_;
};

// The shapes (MxKxN), then ones whose scale layouts carry padding: m = 1001 pads the
// 1x128 scales' rows to 1004 (VEC128_32F), k = 2304 pads each row of 18 weight-scale blocks to
// 20 (BLK128x128_32F), k = 2064 ends in a partial 16-deep K block; 17x272x328 and 333x2064x136
// leave partial tiles along every dimension (and CTAs of a cluster without a tile); 1x16x8 is
// the least TMA takes.
inline const std::vector<GemmShape> kShapes = {
    {4096, 4096, 4096}, {1000, 2048, 3000}, {128, 7168, 2048}, {1001, 2304, 3000},
    {1000, 2064, 3008}, {17, 272, 328},     {333, 2064, 136},  {1, 16, 8},
};

// Never dereferenced: the checks come first. 16-byte aligned unless a test says otherwise.
template <class T = void>
T* fake(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

inline GemmOperand fake_operand(int64_t rows, int64_t k, ScaleLayout layout) {
  GemmOperand operand;
  operand.tensor.data = fake(0x1000);
  operand.tensor.format = ElementFormat::kE4M3;
  operand.tensor.rows = rows;
  operand.tensor.cols = k;
  operand.tensor.scale = fake(0x3000);
  operand.tensor.scale_layout = layout;
  return operand;
}

// An FP8Block problem for the refusal tests, which need no GPU: 1x128 scales on the left,
// `right` on the right.
inline GemmProblem fake_problem(const GemmShape& s, ScaleLayout right) {
  return {fake_operand(s.m, s.k, ScaleLayout::kVec128), fake_operand(s.n, s.k, right),
          fake<__nv_bfloat16>(0x2000), false};
}

// A provider's factory: make_cutlass_dense_gemms, make_deepgemm_dense_gemms.
using DenseGemmFactory = std::vector<std::unique_ptr<GroupedGemm>> (*)(const GemmProblem&,
                                                                       cudaStream_t);

// Every configuration `make` returns must match, twice in a row (a second run must not depend on
// what the first left behind, e.g. stream-K's counters), and be labelled `label`...; returns
// their algorithms.
inline std::vector<std::string> expect_every_configuration_matches(DenseGemmFactory make,
                                                                   const GemmShape& shape,
                                                                   ScaleLayout right,
                                                                   const std::string& label) {
  SCOPED_TRACE(dims(shape));
  const TestStream stream;
  const DenseCase c(shape, right, stream.stream);
  std::vector<std::string> algorithms;
  for (const std::unique_ptr<GroupedGemm>& gemm : make(c.problem(), stream.stream)) {
    EXPECT_FALSE(gemm->emulated());
    EXPECT_EQ(gemm->algorithm().rfind(label, 0), 0u) << gemm->algorithm();
    c.expect_match(*gemm, "first", stream.stream);
    c.expect_match(*gemm, "second", stream.stream);
    algorithms.push_back(gemm->algorithm());
  }
  return algorithms;
}

}  // namespace gemmscope::testing
