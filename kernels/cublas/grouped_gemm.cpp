// cuBLAS's grouped batched GEMM (cublasGemmGroupedBatchedEx, cuBLAS 12.5+): all experts' BF16
// products in one call, each expert a cuBLAS group of one problem, FP32 accumulation, BF16
// output, alpha 1, beta 0.
//
// The row-major problem output[P, Q] = left[P, K] · right[K, Q] is handed to column-major cuBLAS
// exactly as GemmPlan hands it to cuBLASLt: a row-major [rows, cols] array is a column-major
// cols x rows matrix with leading dimension cols, so cuBLAS computes the transposed output
// C (Q x P, ld Q) = op(A) · op(B) = right^T · left^T, with A = `right` and B = `left`:
//
//   cuBLAS argument  value                    Fprop          Dgrad          Wgrad
//   ---------------  -----------------------  -------------  -------------  -------------
//   m                Q = right.outer()        out            in             in
//   n                P = left.outer()         expert rows    expert rows    out
//   k                K = left.contraction()   in             out            expert rows
//   transa           right.k_major ? T : N    T              N              N
//   Aarray[g]        right.tensor.data        W  [out, in]   W  [out, in]   X  [rows, in]
//   lda              right.tensor.cols        in             in             in
//   transb           left.k_major ? N : T     N              N              T
//   Barray[g]        left.tensor.data         X  [rows, in]  dY [rows, out] dY [rows, out]
//   ldb              left.tensor.cols         in             out            out
//   Carray[g]        output                   Y  [rows, out] dX [rows, in]  dW [out, in]
//   ldc              Q                        out            in             in
//
// (The passes' operands as bench/pass_tensors.cpp builds them: Fprop Y = X·Wᵀ with both
// operands K-major; Dgrad dX = dY·W with W not K-major; Wgrad dW = dYᵀ·X with both stored
// [rows, ·], neither K-major.) The docs' leading-dimension rules hold in every case: transa N
// needs lda >= m (lda = Q), T needs lda >= k (lda = K); transb N needs ldb >= k (ldb = K), T
// needs ldb >= n (ldb = P); ldc = Q = m.

#include "kernels/cublas/grouped_gemm.h"

#include <cublas_v2.h>

#include <climits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cublaslt/context.h"
#include "kernels/detail/cublas_check.h"
#include "kernels/device_buffer.h"
#include "kernels/grouped_problems.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/format_names.h"

namespace gemmscope {
namespace {

void require_bf16(const std::vector<GemmProblem>& groups) {
  const GemmProblem& first = groups.front();  // check_grouped_problems: all groups alike
  const ElementFormat left = first.left.tensor.format;
  const ElementFormat right = first.right.tensor.format;
  if (left != ElementFormat::kBF16 || right != ElementFormat::kBF16) {
    throw Unsupported(
        std::string("cuBLAS's grouped batched GEMM takes BF16/FP16/FP32 only; these groups are ") +
        to_string(left) + " x " + to_string(right));
  }
  // A BF16 stand-in of an NVFP4 operand (EmulatedGemm) carries a device-side alpha factor, which
  // this API cannot take: it supports host pointer mode only.
  if (first.left.tensor.tensor_scale != nullptr || first.right.tensor.tensor_scale != nullptr) {
    throw Unsupported(
        "cuBLAS's grouped batched GEMM takes alpha from the host only; these groups carry "
        "per-tensor factors on the device");
  }
}

// The grouped API exists from cuBLAS 12.5 (CUBLAS_VERSION: major * 10000 + minor * 100 + patch).
#if CUBLAS_VERSION >= 120500

int checked_int(int64_t value, const char* what) {
  if (value > INT_MAX) {
    throw Unsupported("cuBLAS's grouped batched GEMM takes 32-bit sizes; " + std::string(what) +
                      " is " + std::to_string(value));
  }
  return static_cast<int>(value);
}

struct HandleDeleter {
  void operator()(cublasHandle_t handle) const { cublasDestroy(handle); }
};
using UniqueHandle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, HandleDeleter>;

class CublasGroupedGemm : public GroupedGemm {
 public:
  CublasGroupedGemm(const std::vector<GemmProblem>& groups, cudaStream_t stream)
      : workspace_(CublasLtContext::kWorkspaceBytes) {
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    handle_.reset(handle);

    const size_t count = groups.size();
    group_count_ = checked_int(static_cast<int64_t>(count), "the group count");
    std::vector<const void*> a(count), b(count);
    std::vector<void*> c(count);
    for (size_t g = 0; g < count; ++g) {
      const GemmOperand& left = groups[g].left;
      const GemmOperand& right = groups[g].right;
      // See the table at the top: A is `right`, B is `left`, C the transposed output.
      transa_.push_back(right.k_major ? CUBLAS_OP_T : CUBLAS_OP_N);
      transb_.push_back(left.k_major ? CUBLAS_OP_N : CUBLAS_OP_T);
      m_.push_back(checked_int(right.outer(), "Q"));
      n_.push_back(checked_int(left.outer(), "P"));
      k_.push_back(checked_int(left.contraction(), "K"));
      lda_.push_back(checked_int(right.tensor.cols, "the right operand's row length"));
      ldb_.push_back(checked_int(left.tensor.cols, "the left operand's row length"));
      ldc_.push_back(m_.back());
      a[g] = right.tensor.data;
      b[g] = left.tensor.data;
      c[g] = groups[g].output;
    }
    group_size_.assign(count, 1);
    alpha_.assign(count, 1.0f);
    beta_.assign(count, 0.0f);
    // The matrix pointer arrays are read by the GPU, so they live in device memory.
    a_ = upload(a, stream);
    b_ = upload(b, stream);
    c_ = upload(c, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // the host arrays go out of scope here
  }

  void run(cudaStream_t stream) const override {
    cublasHandle_t handle = handle_.get();
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    // cublasSetStream resets the workspace to cuBLAS's default pool, so this follows it; the
    // docs recommend a user workspace of 32 MiB on Hopper, as CublasLtContext gives cuBLASLt.
    CUBLAS_CHECK(cublasSetWorkspace(handle, workspace_.get(), workspace_.bytes()));
    CUBLAS_CHECK(cublasGemmGroupedBatchedEx(
        handle, transa_.data(), transb_.data(), m_.data(), n_.data(), k_.data(), alpha_.data(),
        a_.get(), CUDA_R_16BF, lda_.data(), b_.get(), CUDA_R_16BF, ldb_.data(), beta_.data(),
        c_.get(), CUDA_R_16BF, ldc_.data(), group_count_, group_size_.data(), CUBLAS_COMPUTE_32F));
  }

  // One call; cuBLAS may split it into a few kernels.
  size_t launches() const override { return 4; }

  std::string algorithm() const override {
    return "cuBLAS grouped batched GEMM (cublasGemmGroupedBatchedEx, " +
           std::to_string(group_count_) + " groups, BF16, FP32 accumulation)";
  }

 private:
  // Declared first so that it is freed last, after the handle that uses it (cublasDestroy
  // synchronises the device).
  DeviceBuffer<unsigned char> workspace_;
  UniqueHandle handle_;
  int group_count_ = 0;
  // Host arrays of one entry per group, read by cuBLAS at each call (host pointer mode).
  std::vector<cublasOperation_t> transa_, transb_;
  std::vector<int> m_, n_, k_, lda_, ldb_, ldc_, group_size_;
  std::vector<float> alpha_, beta_;
  // Device arrays of one matrix pointer per group.
  DeviceBuffer<const void*> a_, b_;
  DeviceBuffer<void*> c_;
};

#endif

}  // namespace

std::unique_ptr<GroupedGemm> make_cublas_grouped_gemm(const std::vector<GemmProblem>& groups,
                                                      cudaStream_t stream) {
  check_grouped_problems(groups, "cuBLAS grouped GEMM");
  require_bf16(groups);
#if CUBLAS_VERSION >= 120500
  return std::make_unique<CublasGroupedGemm>(groups, stream);
#else
  (void)stream;
  throw Unsupported(
      "cuBLAS's grouped batched GEMM (cublasGemmGroupedBatchedEx) needs cuBLAS 12.5 "
      "or newer; this build has cuBLAS " +
      std::to_string(CUBLAS_VERSION));
#endif
}

}  // namespace gemmscope
