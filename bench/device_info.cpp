#include "bench/device_info.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "quant/base/cuda_check.h"

namespace gemmscope {
namespace {

// CUDA encodes versions as 1000 * major + 10 * minor.
std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

}  // namespace

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorName(status) + ": " +
           cudaGetErrorString(status) + ")";
  }
  return count > 0 ? "" : "no CUDA device found";
}

DeviceInfo query_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp props{};
  CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  DeviceInfo info;
  info.name = props.name;
  info.cc_major = props.major;
  info.cc_minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000;
  info.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  info.l2_bytes = props.l2CacheSize;
  info.memory_bytes = static_cast<long long>(props.totalGlobalMem);
  int driver = 0;
  int runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  info.driver_version = cuda_version_string(driver);
  info.cuda_runtime_version = cuda_version_string(runtime);
  // cuBLASLt encodes major * 10000 + minor * 100 + patch.
  const size_t lt = cublasLtGetVersion();
  info.cublaslt_version = std::to_string(lt / 10000) + "." + std::to_string((lt / 100) % 100) +
                          "." + std::to_string(lt % 100);
  return info;
}

}  // namespace gemmscope
