#pragma once
// An NVTX push/pop range for the lifetime of a scope. The work of every timed iteration is
// enqueued inside one named exactly like the case, so Nsight tools can isolate a single case.

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace gemmscope {

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace gemmscope
