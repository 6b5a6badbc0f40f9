#include "kernels/cublaslt/context.h"

#include "kernels/detail/cublas_check.h"

namespace gemmscope {

CublasLtContext::CublasLtContext() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtContext::~CublasLtContext() {
  cublasLtDestroy(handle_);
}

}  // namespace gemmscope
