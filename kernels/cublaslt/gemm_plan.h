#pragma once
// One cuBLASLt matmul, described in the row-major terms a training framework uses and planned
// once: descriptors, scale modes and the algorithm are chosen at construction, outside any
// timed region, so that run() enqueues exactly one cublasLtMatmul.
//
//   output[P, Q] (row-major BF16) = alpha · left[P, K] · right[K, Q]
//
// alpha is 1, or the product of the operands' per-tensor factors (QuantizedTensor::
// tensor_scale, NVFP4's second scaling level), computed on the GPU by run() before the matmul.
//
// Each operand is stored either K-major (row-major [outer, K]) or not ([K, outer]). cuBLASLt
// is column-major, so the plan passes `right` as its A and `left` as its B: two K-major
// operands give cuBLASLt's "TN", the only layout Hopper's FP8 tensor cores take.

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "kernels/cublaslt/context.h"
#include "kernels/device_buffer.h"
#include "kernels/gemm_problem.h"

namespace gemmscope {

enum class AlgorithmChoice {
  kHeuristic,  // cuBLASLt's first heuristic answer, as frameworks use it
  kAutotune,   // the fastest of the heuristic's top candidates, each timed on this GPU
};

class GemmPlan {
 public:
  // How many heuristic candidates --autotune times.
  static constexpr int kAutotuneCandidates = 8;

  // Throws Unsupported when cuBLASLt has no algorithm for the problem on this GPU.
  GemmPlan(const CublasLtContext& context, const GemmProblem& problem, AlgorithmChoice choice,
           cudaStream_t stream);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  void run(cudaStream_t stream) const;

  // The chosen algorithm and how it was chosen, e.g. "algo 66 tile 29 stages 15 (heuristic)".
  const std::string& algorithm() const { return algorithm_; }

 private:
  struct Descriptors;
  void run_with(const cublasLtMatmulAlgo_t& algo, cudaStream_t stream) const;

  const CublasLtContext& context_;
  GemmProblem problem_;
  std::unique_ptr<Descriptors> descriptors_;
  DeviceBuffer<float> device_scalars_;  // alpha, beta when alpha comes from tensor scales
  cublasLtMatmulAlgo_t algo_{};
  std::string algorithm_;
};

}  // namespace gemmscope
