#pragma once
// The facts about the GPU (and its software) that decide what can run and that every result
// is reported with.

#include <string>

namespace gemmscope {

struct DeviceInfo {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int sm_clock_mhz = 0;      // peak
  int memory_clock_mhz = 0;  // peak
  long long l2_bytes = 0;
  long long memory_bytes = 0;
  std::string driver_version;        // CUDA version the driver supports, e.g. "13.0"
  std::string cuda_runtime_version;  // e.g. "13.0"
  std::string cublaslt_version;      // e.g. "13.1.0"

  std::string compute_capability() const {
    return std::to_string(cc_major) + "." + std::to_string(cc_minor);
  }
};

// Empty when a CUDA device is usable, otherwise why not (no driver, no device).
std::string gpu_unavailable_reason();

// The current device. Throws CudaError when there is none.
DeviceInfo query_device();

}  // namespace gemmscope
