// Dev probe (an experiment, removed in the commit after it; docs/results.md has what it found):
// what te-tutorial's FP8Block Wgrad GEMMs (1x128 x 1x128 block scales) cost when they write
// BF16, as gemmscope's Wgrad case does, against when they add into an FP32 main gradient
// (D += A·Bᵀ in FP32: Megatron's gradient-accumulation fusion, and the only output DeepGEMM's
// Hopper 1D1D kernel has: its epilogue is a TMA reduce-add, `cd_dtype_t == float` asserted).
//
// Candidates, on the same operands (FP8Block's own 1x128 quantizer on random BF16):
//   cuBLASLt, BF16 output          what `gemm_bench` times (GemmPlan, heuristic)
//   cuBLASLt, FP32 D += A·Bᵀ       the same matmul with C = D FP32 and beta 1
//   DeepGEMM sm90_fp8_gemm_1d1d    128 x {152, 136, 120}; 152 with B shared is what DeepGEMM's own
//                                  heuristic picks for all four shapes (read, not copied)
// Each FP32 candidate is checked against the BF16 output once (relative Frobenius difference).
// Timing: a 2 s round-robin warm-up, then medians of CUDA-event samples (5 runs a sample),
// round robin; then each candidate alone after 2 s of itself, as the public figures were timed.
//
// Usage: wgrad_accumulate_probe   (prints one line per shape and candidate)

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh>

#include "kernels/cublas_check.h"
#include "kernels/cublaslt_context.h"
#include "kernels/device_buffer.h"
#include "kernels/event_timer.h"
#include "kernels/gemm_plan.h"
#include "kernels/random_fill.h"
#include "quant/cuda_check.h"
#include "quant/fp8_block.h"
#include "quant/fp8_operand.h"
#include "quant/fp8_scale_layout.h"

using namespace gemmscope;

namespace {

constexpr uint32_t kSms = 132;

PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                              cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess)
    throw std::runtime_error("no cuTensorMapEncodeTiled");
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
}

CUtensorMap tensor_map(CUtensorMapDataType type, const void* base, uint64_t inner, uint64_t outer,
                       uint64_t row_bytes, uint32_t box_inner, uint32_t box_outer, bool swizzle) {
  const cuuint64_t dims[2] = {inner, outer};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map{};
  const CUresult r = encode_tiled()(
      &map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE,
      swizzle ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed: " + std::to_string(r));
  return map;
}

struct Operand {
  Operand(int64_t rows, int64_t k, uint64_t seed, cudaStream_t stream)
      : layout(rows, k, ElementFormat::kE4M3, ScaleLayout::kVec128),
        data(static_cast<size_t>(layout.data_bytes())),
        scales(static_cast<size_t>(layout.rowwise_scale_count())) {
    DeviceBuffer<__nv_bfloat16> input(static_cast<size_t>(rows * k));
    fill_normal(input.get(), input.size(), seed, 0.0f, 1.0f, stream);
    quantize_fp8_1x128(input.get(), rows, k, {data.get(), scales.get(), nullptr, nullptr}, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  Fp8OperandLayout layout;
  DeviceBuffer<uint8_t> data;
  DeviceBuffer<float> scales;
};

// One DeepGEMM 1D1D instantiation: tile 128 x kBlockN, two CTAs a cluster sharing A or B.
template <uint32_t kBlockN, bool kMulticastOnA>
struct DeepGemm1d1d {
  static constexpr uint32_t kBlockM = 128;
  static constexpr uint32_t kOutputBytes = kBlockM * kBlockN * 4;
  static constexpr uint32_t kStageBytes =
      kBlockM * 128 + kBlockN * 128 + kBlockM * 4 + (kBlockN * 4 + 127) / 128 * 128;
  static constexpr uint32_t kStages = std::min<uint32_t>((232448 - kOutputBytes - 256) / kStageBytes, 16);
  static constexpr uint32_t kSharedBytes = kOutputBytes + kStages * kStageBytes + 2 * kStages * 8;
  static constexpr auto kernel =
      &deep_gemm::sm90_fp8_gemm_1d1d_impl<0, 0, 0, 1, kBlockM, kBlockN, 128, 128, 128, kStages,
                                          128, 256, 2, kMulticastOnA, kSms,
                                          deep_gemm::GemmType::Normal, float>;

  static std::function<void(cudaStream_t)> make(const Operand& a, const Operand& b, float* d,
                                                uint32_t m, uint32_t n, uint32_t k) {
    const uint64_t k_blocks = (k + 127) / 128;
    const uint64_t padded_m = round_up(m, kScaleRowAlignment), padded_n = round_up(n, kScaleRowAlignment);
    const CUtensorMap map_a = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, a.data.get(), k, m, k, 128, kBlockM, true);
    const CUtensorMap map_b = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, b.data.get(), k, n, k, 128, kBlockN, true);
    const CUtensorMap map_sfa = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, a.scales.get(), padded_m,
                                           k_blocks, padded_m * 4, kBlockM, 1, false);
    const CUtensorMap map_sfb = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, b.scales.get(), padded_n,
                                           k_blocks, padded_n * 4, kBlockN, 1, false);
    // Each math warp group stores its 64 rows.
    const CUtensorMap map_d = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, d, n, m, uint64_t{4} * n,
                                         kBlockN, 64, false);
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBytes)));
    auto* pa = static_cast<__nv_fp8_e4m3*>(static_cast<void*>(a.data.get()));
    auto* pb = static_cast<__nv_fp8_e4m3*>(static_cast<void*>(b.data.get()));
    return [=](cudaStream_t stream) {
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = 2;
      cluster.val.clusterDim.y = 1;
      cluster.val.clusterDim.z = 1;
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(kSms);
      config.blockDim = dim3(128 + 256);
      config.dynamicSmemBytes = kSharedBytes;
      config.stream = stream;
      config.attrs = &cluster;
      config.numAttrs = 1;
      CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, pa, pb, static_cast<int*>(nullptr),
                                    static_cast<cute::TmaDescriptor*>(nullptr), m, n, k, map_a,
                                    map_b, map_sfa, map_sfb, map_d));
    };
  }

  static std::string name() {
    return "DeepGEMM 1d1d FP32 D+=AB 128x" + std::to_string(kBlockN) + ", " +
           (kMulticastOnA ? "A" : "B") + " shared, " + std::to_string(kStages) + " stages";
  }
};

// cuBLASLt's FP8 1x128 x 1x128 matmul writing D[m, n] (row-major FP32) += A[m, k] · B[n, k]ᵀ.
class CublasLtAccumulate {
 public:
  CublasLtAccumulate(const CublasLtContext& context, const Operand& a, const Operand& b, float* d,
                     int64_t m, int64_t n, int64_t k)
      : context_(context), a_(a), b_(b), d_(d) {
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&matmul_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
    const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    const float* scale_a = b.scales.get();  // cuBLASLt's A is our B (column-major view)
    const float* scale_b = a.scales.get();
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode, sizeof mode));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode, sizeof mode));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la_, CUDA_R_8F_E4M3, k, n, k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_8F_E4M3, k, m, k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld_, CUDA_R_32F, n, m, n));
    cublasLtMatmulPreference_t preference = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const uint64_t workspace = context.workspace_bytes();
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(context.handle(), matmul_, la_, lb_, ld_, ld_,
                                                preference, 1, &result, &found));
    cublasLtMatmulPreferenceDestroy(preference);
    if (found == 0)
      throw std::runtime_error("cuBLASLt has no FP32-output 1x128 x 1x128 algorithm here");
    algo_ = result.algo;
  }
  ~CublasLtAccumulate() {
    cublasLtMatrixLayoutDestroy(ld_);
    cublasLtMatrixLayoutDestroy(lb_);
    cublasLtMatrixLayoutDestroy(la_);
    cublasLtMatmulDescDestroy(matmul_);
  }
  void run(cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 1.0f;
    CUBLAS_CHECK(cublasLtMatmul(context_.handle(), matmul_, &alpha, b_.data.get(), la_,
                                a_.data.get(), lb_, &beta, d_, ld_, d_, ld_, &algo_,
                                context_.workspace(), context_.workspace_bytes(), stream));
  }

 private:
  const CublasLtContext& context_;
  const Operand& a_;
  const Operand& b_;
  float* d_;
  cublasLtMatmulDesc_t matmul_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

__global__ void squared_difference(const float* d, const __nv_bfloat16* reference, size_t count,
                                   double* sums) {
  double diff = 0, norm = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count;
       i += size_t{gridDim.x} * blockDim.x) {
    const double r = __bfloat162float(reference[i]);
    diff += (d[i] - r) * (d[i] - r);
    norm += r * r;
  }
  atomicAdd(&sums[0], diff);
  atomicAdd(&sums[1], norm);
}

double relative_difference(const float* d, const __nv_bfloat16* reference, size_t count,
                           cudaStream_t stream) {
  DeviceBuffer<double> sums(2);
  CUDA_CHECK(cudaMemsetAsync(sums.get(), 0, 2 * sizeof(double), stream));
  squared_difference<<<1024, 256, 0, stream>>>(d, reference, count, sums.get());
  CUDA_CHECK(cudaGetLastError());
  double host[2];
  CUDA_CHECK(cudaMemcpyAsync(host, sums.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::sqrt(host[0] / host[1]);
}

struct Candidate {
  std::string name;
  std::function<void(cudaStream_t)> run;
  float* fp32_output = nullptr;  // checked against the BF16 output
};

double median_ms(const Candidate& c, int samples, cudaStream_t stream) {
  constexpr int kRunsASample = 5;
  EventTimer timer;
  std::vector<float> ms;
  for (int s = 0; s < samples; ++s) {
    timer.start(stream);
    for (int r = 0; r < kRunsASample; ++r)
      c.run(stream);
    timer.stop(stream);
    ms.push_back(timer.elapsed_ms() / kRunsASample);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void warm(const std::vector<const Candidate*>& candidates, double seconds, cudaStream_t stream) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    for (const Candidate* c : candidates)
      c->run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

}  // namespace

int main() {
  struct Shape {
    const char* name;
    int64_t m, k, n;  // as gemm_bench names FP8Block/Wgrad/<name>
  };
  const Shape shapes[] = {{"qkv", 4096, 15872, 12288},
                          {"attn_out", 4096, 15872, 4096},
                          {"mlp_up", 4096, 15872, 16384},
                          {"mlp_down", 16384, 15872, 4096}};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CublasLtContext context;
  for (const Shape& s : shapes) {
    const uint32_t m = static_cast<uint32_t>(s.m), n = static_cast<uint32_t>(s.n),
                   k = static_cast<uint32_t>(s.k);
    Operand a(s.m, s.k, 1, stream), b(s.n, s.k, 2, stream);
    DeviceBuffer<__nv_bfloat16> bf16_output(static_cast<size_t>(s.m * s.n));
    DeviceBuffer<float> cublas_fp32(bf16_output.size()), deepgemm_fp32(bf16_output.size());
    GemmProblem problem;
    problem.left = {a.layout.rowwise(a.data.get(), a.scales.get()), true};
    problem.right = {b.layout.rowwise(b.data.get(), b.scales.get()), true};
    problem.output = bf16_output.get();
    GemmPlan plan(context, problem, AlgorithmChoice::kHeuristic, stream);
    CublasLtAccumulate accumulate(context, a, b, cublas_fp32.get(), s.m, s.n, s.k);
    std::vector<Candidate> candidates = {
        {"cuBLASLt BF16 out, " + plan.algorithm(), [&](cudaStream_t st) { plan.run(st); }},
        {"cuBLASLt FP32 D+=AB", [&](cudaStream_t st) { accumulate.run(st); }, cublas_fp32.get()},
        {DeepGemm1d1d<152, false>::name(),
         DeepGemm1d1d<152, false>::make(a, b, deepgemm_fp32.get(), m, n, k), deepgemm_fp32.get()},
        {DeepGemm1d1d<136, false>::name(),
         DeepGemm1d1d<136, false>::make(a, b, deepgemm_fp32.get(), m, n, k), deepgemm_fp32.get()},
        {DeepGemm1d1d<120, true>::name(),
         DeepGemm1d1d<120, true>::make(a, b, deepgemm_fp32.get(), m, n, k), deepgemm_fp32.get()},
    };
    // Correctness: the BF16 output (NaN-poisoned first), then each FP32 one from zero.
    CUDA_CHECK(cudaMemsetAsync(bf16_output.get(), 0xFF, bf16_output.bytes(), stream));
    candidates[0].run(stream);
    for (size_t i = 1; i < candidates.size(); ++i) {
      CUDA_CHECK(cudaMemsetAsync(candidates[i].fp32_output, 0, bf16_output.size() * 4, stream));
      candidates[i].run(stream);
      std::printf("%-9s check %-55s rel. diff from BF16 output %.2e\n", s.name,
                  candidates[i].name.c_str(),
                  relative_difference(candidates[i].fp32_output, bf16_output.get(),
                                      bf16_output.size(), stream));
    }
    const double flop = 2.0 * s.m * s.n * s.k;
    std::vector<const Candidate*> all;
    for (const Candidate& c : candidates)
      all.push_back(&c);
    warm(all, 2.0, stream);
    std::vector<std::vector<double>> rounds(candidates.size());
    for (int round = 0; round < 15; ++round) {
      for (size_t i = 0; i < candidates.size(); ++i)
        rounds[i].push_back(median_ms(candidates[i], 1, stream));
    }
    for (size_t i = 0; i < candidates.size(); ++i) {
      std::vector<double>& r = rounds[i];
      std::sort(r.begin(), r.end());
      warm({&candidates[i]}, 2.0, stream);
      const double alone = median_ms(candidates[i], 21, stream);
      std::printf("%-9s %4.0f TFLOP/s round robin, %4.0f alone  %s\n", s.name,
                  flop / (r[r.size() / 2] * 1e-3) / 1e12, flop / (alone * 1e-3) / 1e12,
                  candidates[i].name.c_str());
    }
    std::fflush(stdout);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
