#include "kernels/cublaslt_context.h"

#include "kernels/cublas_check.h"

namespace gemmscope {

CublasLtContext::CublasLtContext() : workspace_(kWorkspaceBytes) {
  CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtContext::~CublasLtContext() {
  cublasLtDestroy(handle_);
}

}  // namespace gemmscope
