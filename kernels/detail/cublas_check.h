#pragma once
// Checks every cuBLASLt call. CUBLAS_STATUS_NOT_SUPPORTED means "no kernel for this
// combination on this GPU/library" and becomes `Unsupported`; anything else is a fault.

#include <cublasLt.h>

#include <stdexcept>
#include <string>

#include "quant/base/unsupported.h"

namespace gemmscope {

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* call,
                                            const char* file, int line) {
  const std::string what = std::string(call) + " returned " + cublasLtGetStatusName(status) + " (" +
                           cublasLtGetStatusString(status) + ") at " + file + ":" +
                           std::to_string(line);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    throw Unsupported("cuBLASLt: " + what);
  throw std::runtime_error(what);
}

}  // namespace gemmscope

#define CUBLAS_CHECK(call)                                                                  \
  do {                                                                                      \
    cublasStatus_t gemmscope_cublas_status_ = (call);                                       \
    if (gemmscope_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                \
      ::gemmscope::throw_cublas_error(gemmscope_cublas_status_, #call, __FILE__, __LINE__); \
    }                                                                                       \
  } while (0)
