#pragma once
// An owning, move-only device allocation. Allocation failures throw CudaError, so a case
// whose buffers do not fit is reported (cudaErrorMemoryAllocation) rather than crashing.

#include <cstddef>
#include <utility>
#include <vector>

#include "quant/base/cuda_check.h"

namespace gemmscope {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0) {
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
    }
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  void reset() {
    if (data_ != nullptr) {
      cudaFree(data_);  // Not checked: a destructor must not throw, and freeing cannot fail here.
      data_ = nullptr;
    }
  }
  T* data_ = nullptr;
  size_t count_ = 0;
};

// A device copy of `host`, enqueued on `stream`: the caller keeps `host` alive until the
// stream has done the copy.
template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host, cudaStream_t stream) {
  DeviceBuffer<T> device(host.size());
  CUDA_CHECK(
      cudaMemcpyAsync(device.get(), host.data(), device.bytes(), cudaMemcpyHostToDevice, stream));
  return device;
}

}  // namespace gemmscope
