#pragma once
// The host image of the read-only tables a grouped quantize launch reads (each group's kernel
// parameters, the groups' first work items): built once on the host, copied once into device
// memory the caller owns, read by every launch after. The tables hold only device pointers that
// stay valid, so a training step's launches need no copy of their own.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "quant/base/cuda_check.h"
#include "quant/detail/launch_checks.h"

namespace gemmscope::detail {

class DeviceTables {
 public:
  static constexpr size_t kAlignment = 16;

  // Appends a table (placed on a kAlignment boundary) and returns its offset.
  template <typename T>
  size_t add(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= kAlignment);
    const size_t offset = (image_.size() + kAlignment - 1) / kAlignment * kAlignment;
    image_.resize(offset + values.size() * sizeof(T));
    if (!values.empty())
      std::memcpy(image_.data() + offset, values.data(), values.size() * sizeof(T));
    return offset;
  }

  // Bytes of device memory the tables take.
  size_t bytes() const { return image_.size(); }

  // Enqueues the copy into `workspace` (device memory of bytes() bytes, kAlignment-aligned) and
  // keeps it for device_table(). The image stays alive with this object, as the copy needs.
  void upload(void* workspace, cudaStream_t stream, const std::string& context) {
    require_device_pointer(workspace, kAlignment, context + ": workspace");
    CUDA_CHECK(
        cudaMemcpyAsync(workspace, image_.data(), image_.size(), cudaMemcpyHostToDevice, stream));
    workspace_ = static_cast<unsigned char*>(workspace);
  }

  // The device copy of the table at `offset`. Throws std::logic_error before upload().
  template <typename T>
  const T* device_table(size_t offset, const std::string& context) const {
    if (workspace_ == nullptr)
      throw std::logic_error(context + ": the tables were not uploaded");
    return reinterpret_cast<const T*>(workspace_ + offset);
  }

 private:
  std::vector<unsigned char> image_;
  unsigned char* workspace_ = nullptr;
};

// The first work item of each group, then the total: prefix sums of `counts`.
inline std::vector<int64_t> first_items(const std::vector<int64_t>& counts) {
  std::vector<int64_t> first(1, 0);
  for (const int64_t count : counts)
    first.push_back(first.back() + count);
  return first;
}

}  // namespace gemmscope::detail
