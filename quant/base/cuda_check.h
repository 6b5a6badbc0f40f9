#pragma once
// Checks every CUDA runtime call. It lives in the lowest layer (quant/) so that quant/, kernels/
// and bench/ all report failures the same way: as an exception that names the call, the file
// and line, and CUDA's own message. bench/ turns it into a skipped or failed case.

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gemmscope {

// A failed CUDA call. `code` lets callers tell out-of-memory apart from real faults.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  throw CudaError(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                            ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

}  // namespace gemmscope

#define CUDA_CHECK(call)                                                           \
  do {                                                                             \
    cudaError_t gemmscope_status_ = (call);                                        \
    if (gemmscope_status_ != cudaSuccess) {                                        \
      ::gemmscope::throw_cuda_error(gemmscope_status_, #call, __FILE__, __LINE__); \
    }                                                                              \
  } while (0)

// Checks the launch of the kernel just enqueued (bad configuration, missing image for this GPU).
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
