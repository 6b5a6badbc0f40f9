#pragma once
// The block-scaled GEMM (MXFP8, NVFP4) on GPUs without those tensor cores (Hopper): both
// operands are dequantized exactly into BF16 — an E4M3 or E2M1 element times its E8M0 or E4M3
// block scale fits BF16's significand — NVFP4's per-tensor factors ride in alpha, and a BF16
// cuBLASLt GEMM with FP32 accumulation multiplies them. The result equals the native GEMM's up
// to accumulation order, so every recipe runs, is verified and shows its accuracy on Hopper.
// Its time (dequantization included) says nothing about Blackwell.

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "kernels/cublaslt/gemm_plan.h"
#include "kernels/device_buffer.h"

namespace gemmscope {

class EmulatedGemm {
 public:
  // `quantized`: K-major MXFP8 or NVFP4 operands, as the native GEMM would read them.
  EmulatedGemm(const CublasLtContext& context, const GemmProblem& quantized, AlgorithmChoice choice,
               cudaStream_t stream);

  // Dequantizes both operands, then runs the BF16 GEMM.
  void run(cudaStream_t stream) const;
  // "emulated (dequantize to BF16, then algo ...)".
  std::string algorithm() const;

 private:
  void dequantize_operands(cudaStream_t stream) const;

  GemmProblem quantized_;
  DeviceBuffer<__nv_bfloat16> left_;
  DeviceBuffer<__nv_bfloat16> right_;
  std::unique_ptr<GemmPlan> plan_;
};

}  // namespace gemmscope
