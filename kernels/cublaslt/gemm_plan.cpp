#include "kernels/cublaslt/gemm_plan.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/cublaslt/tensor_scale_alpha.h"
#include "kernels/detail/cublas_check.h"
#include "kernels/event_timer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

cudaDataType_t cuda_type(ElementFormat format) {
  switch (format) {
    case ElementFormat::kBF16:
      return CUDA_R_16BF;
    case ElementFormat::kE4M3:
      return CUDA_R_8F_E4M3;
    case ElementFormat::kE5M2:
      return CUDA_R_8F_E5M2;
    case ElementFormat::kE2M1:
      return CUDA_R_4F_E2M1;
  }
  throw std::invalid_argument("GemmPlan: unknown element format");
}

cublasLtMatmulMatrixScale_t cublas_scale_mode(ScaleLayout layout) {
  switch (layout) {
    case ScaleLayout::kTensor:
      return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    case ScaleLayout::kVec128:
      return CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    case ScaleLayout::kBlock128x128:
      return CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    // A per-row vector of each operand: cuBLASLt's A (our right) scales its M = Q outputs, its B
    // (our left) its N = P outputs.
    case ScaleLayout::kOuterVec:
      return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    case ScaleLayout::kVec32Ue8m0:
      return CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    case ScaleLayout::kVec16Ue4m3:
      return CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    case ScaleLayout::kNone:
      break;
  }
  throw std::invalid_argument("GemmPlan: an operand without scales has no scale mode");
}

void check_operand(const GemmOperand& operand, const char* which) {
  const QuantizedTensor& t = operand.tensor;
  if (t.data == nullptr || t.rows <= 0 || t.cols <= 0) {
    throw std::invalid_argument(std::string("GemmPlan: the ") + which +
                                " operand has no data or a non-positive size");
  }
  if ((t.format == ElementFormat::kBF16) != (t.scale_layout == ScaleLayout::kNone)) {
    throw std::invalid_argument(std::string("GemmPlan: the ") + which +
                                " operand must have scales exactly when it is quantized");
  }
  if (t.scale_layout != ScaleLayout::kNone && t.scale == nullptr) {
    throw std::invalid_argument(std::string("GemmPlan: the ") + which + " operand has no scales");
  }
}

template <typename T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  CUBLAS_CHECK(
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), nullptr));
  return value;
}

std::string describe(const cublasLtMatmulAlgo_t& algo) {
  return "algo " + std::to_string(algo_config<int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID)) + " tile " +
         std::to_string(algo_config<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)) + " stages " +
         std::to_string(algo_config<uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)) + " splitK " +
         std::to_string(algo_config<int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
}

}  // namespace

struct GemmPlan::Descriptors {
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t a = nullptr;
  cublasLtMatrixLayout_t b = nullptr;
  cublasLtMatrixLayout_t d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;

  ~Descriptors() {
    if (preference != nullptr)
      cublasLtMatmulPreferenceDestroy(preference);
    if (d != nullptr)
      cublasLtMatrixLayoutDestroy(d);
    if (b != nullptr)
      cublasLtMatrixLayoutDestroy(b);
    if (a != nullptr)
      cublasLtMatrixLayoutDestroy(a);
    if (matmul != nullptr)
      cublasLtMatmulDescDestroy(matmul);
  }
};

GemmPlan::GemmPlan(const CublasLtContext& context, const GemmProblem& problem,
                   AlgorithmChoice choice, cudaStream_t stream)
    : context_(context), problem_(problem), descriptors_(std::make_unique<Descriptors>()) {
  const GemmOperand& left = problem.left;
  const GemmOperand& right = problem.right;
  check_operand(left, "left");
  check_operand(right, "right");
  if (problem.output == nullptr)
    throw std::invalid_argument("GemmPlan: no output buffer");
  if (left.contraction() != right.contraction()) {
    throw std::invalid_argument("GemmPlan: contraction sizes differ: left " +
                                std::to_string(left.contraction()) + ", right " +
                                std::to_string(right.contraction()));
  }
  const uint64_t p = left.outer();
  const uint64_t q = right.outer();
  const uint64_t k = left.contraction();
  Descriptors& desc = *descriptors_;

  // cuBLASLt's A is our right operand, its B our left (see the header).
  const cublasOperation_t trans_a = right.k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = left.k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc.matmul, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                              sizeof(trans_a)));
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                              sizeof(trans_b)));
  // Per-tensor factors (NVFP4) make alpha a device value, computed before each matmul.
  if (left.tensor.tensor_scale != nullptr || right.tensor.tensor_scale != nullptr) {
    device_scalars_ = DeviceBuffer<float>(2);
    const cublasLtPointerMode_t device_mode = CUBLASLT_POINTER_MODE_DEVICE;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                                                &device_mode, sizeof(device_mode)));
  }
  const bool quantized = right.tensor.scale_layout != ScaleLayout::kNone;
  if (quantized) {
    const int8_t fast_accumulation = problem.fast_accumulation ? 1 : 0;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                &fast_accumulation, sizeof(fast_accumulation)));
    const struct {
      const QuantizedTensor& tensor;
      cublasLtMatmulDescAttributes_t mode;
      cublasLtMatmulDescAttributes_t pointer;
    } scaled[] = {
        {right.tensor, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER},
        {left.tensor, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER},
    };
    for (const auto& s : scaled) {
      const int32_t mode = cublas_scale_mode(s.tensor.scale_layout);
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, s.mode, &mode, sizeof(mode)));
      CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.matmul, s.pointer, &s.tensor.scale,
                                                  sizeof(s.tensor.scale)));
    }
  }

  // Row-major [rows, cols] storage is column-major [cols x rows] with leading dimension cols.
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&desc.a, cuda_type(right.tensor.format),
                                          right.tensor.cols, right.tensor.rows, right.tensor.cols));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&desc.b, cuda_type(left.tensor.format), left.tensor.cols,
                                          left.tensor.rows, left.tensor.cols));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&desc.d, CUDA_R_16BF, q, p, q));

  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&desc.preference));
  const uint64_t workspace = context.workspace_bytes();
  CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      desc.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  std::vector<cublasLtMatmulHeuristicResult_t> candidates(kAutotuneCandidates);
  int found = 0;
  const int requested = choice == AlgorithmChoice::kAutotune ? kAutotuneCandidates : 1;
  CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(context.handle(), desc.matmul, desc.a, desc.b, desc.d,
                                              desc.d, desc.preference, requested, candidates.data(),
                                              &found));
  candidates.resize(found);
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                  [](const auto& c) { return c.state != CUBLAS_STATUS_SUCCESS; }),
                   candidates.end());
  if (candidates.empty()) {
    throw Unsupported("cuBLASLt has no algorithm for this GEMM (" + std::to_string(p) + "x" +
                      std::to_string(k) + "x" + std::to_string(q) + ") on this GPU");
  }

  if (choice == AlgorithmChoice::kHeuristic) {
    algo_ = candidates.front().algo;
    algorithm_ = describe(algo_) + " (heuristic)";
    return;
  }
  // Autotune: each candidate warmed up, then timed over a short burst; the fastest wins.
  constexpr int kWarmupRuns = 2;
  constexpr int kTimedRuns = 10;
  EventTimer timer;
  float best_ms = std::numeric_limits<float>::infinity();
  size_t best = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (int r = 0; r < kWarmupRuns; ++r)
      run_with(candidates[i].algo, stream);
    timer.start(stream);
    for (int r = 0; r < kTimedRuns; ++r)
      run_with(candidates[i].algo, stream);
    timer.stop(stream);
    const float ms = timer.elapsed_ms();
    if (ms < best_ms) {
      best_ms = ms;
      best = i;
    }
  }
  algo_ = candidates[best].algo;
  algorithm_ = describe(algo_) + " (autotuned: candidate " + std::to_string(best + 1) + " of " +
               std::to_string(candidates.size()) + ")";
}

GemmPlan::~GemmPlan() = default;

void GemmPlan::run(cudaStream_t stream) const {
  run_with(algo_, stream);
}

void GemmPlan::run_with(const cublasLtMatmulAlgo_t& algo, cudaStream_t stream) const {
  const float host_scalars[2] = {1.0f, 0.0f};
  const float* alpha = &host_scalars[0];
  const float* beta = &host_scalars[1];
  if (device_scalars_.size() > 0) {
    alpha = device_scalars_.get();
    beta = device_scalars_.get() + 1;
    compute_tensor_scale_alpha(problem_.left.tensor.tensor_scale,
                               problem_.right.tensor.tensor_scale, device_scalars_.get(),
                               device_scalars_.get() + 1, stream);
  }
  const Descriptors& desc = *descriptors_;
  CUBLAS_CHECK(cublasLtMatmul(context_.handle(), desc.matmul, alpha, problem_.right.tensor.data,
                              desc.a, problem_.left.tensor.data, desc.b, beta, problem_.output,
                              desc.d, problem_.output, desc.d, &algo, context_.workspace(),
                              context_.workspace_bytes(), stream));
}

}  // namespace gemmscope
