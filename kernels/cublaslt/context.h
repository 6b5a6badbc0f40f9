#pragma once
// The cuBLASLt handle and workspace shared by every plan in a process.

#include <cublasLt.h>

#include "kernels/device_buffer.h"

namespace gemmscope {

class CublasLtContext {
 public:
  // 32 MiB, as TransformerEngine gives its GEMMs on Hopper and Blackwell.
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  CublasLtContext();
  ~CublasLtContext();
  CublasLtContext(const CublasLtContext&) = delete;
  CublasLtContext& operator=(const CublasLtContext&) = delete;

  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }
  size_t workspace_bytes() const { return workspace_.bytes(); }

 private:
  cublasLtHandle_t handle_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
};

}  // namespace gemmscope
