#include "bench/gpu_warmup.h"

#include <chrono>

#include "bench/pass_tensors.h"
#include "quant/cuda_check.h"

namespace gemmscope {

void warm_up_gpu(double seconds, const CublasLtContext& cublas, cudaStream_t stream) {
  if (seconds <= 0)
    return;
  LayerGemm gemm;
  gemm.pass = Pass::kFprop;
  gemm.op = "warmup";
  gemm.dims = {8192, 8192, 8192};
  gemm.shape = gemm_shape(gemm.pass, gemm.dims);
  const PassTensors tensors(gemm, stream);
  const GemmPlan plan(cublas, tensors.bf16_problem(), AlgorithmChoice::kHeuristic, stream);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 10; ++i)
      plan.run(stream);  // about 15 ms of work on an H100
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

}  // namespace gemmscope
