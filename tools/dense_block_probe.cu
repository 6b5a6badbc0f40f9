// Dev probe (not part of the build; built by hand against build/, see docs/results.md): every FP8Block 1D2D
// configuration) on te-tutorial's shapes, round robin, medians of CUDA-event samples.
// Usage: probe [only_index]   (only_index: run that candidate alone, for ncu)
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <memory>
#include <vector>
#include "kernels/cublaslt_context.h"
#include "kernels/cutlass_dense_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/gemm_plan.h"
#include "quant/cuda_check.h"
#include "quant/fp8_scale_layout.h"
using namespace gemmscope;

__global__ void fill_fp8(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    p[i] = (h & 0x3F) | ((h >> 8) & 0x80);
  }
}
__global__ void fill_scale(float* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    p[i] = 0.5f + (h & 0xFFFF) / 65536.0f * 1.5f;
  }
}

int main(int argc, char** argv) {
  const int only = argc > 1 ? atoi(argv[1]) : -1;
  struct S { const char* name; int64_t m, k, n; };
  const S shapes[] = {{"F qkv", 15872, 4096, 12288}, {"F attn_out", 15872, 4096, 4096},
                      {"F mlp_up", 15872, 4096, 16384}, {"F mlp_down", 15872, 16384, 4096},
                      {"D qkv", 15872, 12288, 4096}};
  cudaStream_t stream; CUDA_CHECK(cudaStreamCreate(&stream));
  CublasLtContext context;
  for (const S& s : shapes) {
    DeviceBuffer<uint8_t> a(s.m * s.k), b(s.n * s.k);
    DeviceBuffer<float> sa(vec128_scale_count(s.m, s.k)), sb(block128_scale_count(s.n, s.k));
    DeviceBuffer<__nv_bfloat16> d(s.m * s.n);
    fill_fp8<<<1024, 256, 0, stream>>>(a.get(), a.size(), 1);
    fill_fp8<<<1024, 256, 0, stream>>>(b.get(), b.size(), 2);
    fill_scale<<<256, 256, 0, stream>>>(sa.get(), sa.size(), 3);
    fill_scale<<<256, 256, 0, stream>>>(sb.get(), sb.size(), 4);
    GemmProblem problem;
    problem.left.tensor.data = a.get(); problem.left.tensor.format = ElementFormat::kE4M3;
    problem.left.tensor.rows = s.m; problem.left.tensor.cols = s.k;
    problem.left.tensor.scale = sa.get(); problem.left.tensor.scale_layout = ScaleLayout::kVec128;
    problem.right.tensor.data = b.get(); problem.right.tensor.format = ElementFormat::kE4M3;
    problem.right.tensor.rows = s.n; problem.right.tensor.cols = s.k;
    problem.right.tensor.scale = sb.get(); problem.right.tensor.scale_layout = ScaleLayout::kBlock128x128;
    problem.output = d.get();
    std::vector<std::unique_ptr<GroupedGemm>> gemms = make_cutlass_dense_gemms(problem, stream);
    GemmPlan plan(context, problem, AlgorithmChoice::kHeuristic, stream);
    std::vector<std::function<void()>> runs;
    std::vector<std::string> names;
    runs.push_back([&] { plan.run(stream); }); names.push_back("cuBLASLt " + plan.algorithm());
    for (auto& g : gemms) { GroupedGemm* p = g.get(); runs.push_back([p, stream] { p->run(stream); }); names.push_back(g->algorithm()); }
    if (only >= 0) {
      printf("%s: [%d] %s\n", s.name, only, names[only].c_str());
      for (int i = 0; i < 3; ++i) runs[only]();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      continue;
    }
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double flop = 2.0 * s.m * s.n * s.k;
    // warm-up ~1.5 s
    for (int w = 0; w < (int)(1.5e15 / flop); ++w) runs[w % runs.size()]();
    std::vector<std::vector<float>> samples(runs.size());
    for (int round = 0; round < 15; ++round)
      for (size_t c = 0; c < runs.size(); ++c) {
        cudaEventRecord(e0, stream);
        for (int r = 0; r < 10; ++r) runs[c]();
        cudaEventRecord(e1, stream);
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1); samples[c].push_back(ms / 10);
      }
    for (size_t c = 0; c < runs.size(); ++c) {
      auto v = samples[c]; std::sort(v.begin(), v.end());
      const double med = v[v.size() / 2];
      printf("%-11s %7.1f us %6.0f TF/s  [%d] %s\n", s.name, med * 1e3, flop / (med * 1e-3) / 1e12, (int)c, names[c].c_str());
    }
  }
  return 0;
}
