#pragma once
// NVTX ranges named after a case, for the lifetime of a scope. The work of every timed
// iteration is enqueued inside them, so Nsight tools can isolate one case.
//
// A case name contains '/', which Nsight Compute's --nvtx-include reads as the separator of
// nested push/pop ranges. So the name is pushed one '/'-separated component at a time: the
// ranges BF16 > Fprop > qkv > native > M:15872 > K:4096 > N:12288, and
//   ncu --nvtx --nvtx-include "BF16/Fprop/qkv/native/M:15872/K:4096/N:12288/"
// matches exactly that case's kernels.

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gemmscope {

// A case name's '/'-separated components, the ranges NvtxRange pushes. Split once per case,
// not on every timed iteration.
inline std::vector<std::string> nvtx_components(const std::string& name) {
  std::vector<std::string> components;
  size_t begin = 0;
  while (begin <= name.size()) {
    const size_t end = std::min(name.find('/', begin), name.size());
    components.push_back(name.substr(begin, end - begin));
    begin = end + 1;
  }
  return components;
}

class NvtxRange {
 public:
  explicit NvtxRange(const std::vector<std::string>& components)
      : depth_(static_cast<int>(components.size())) {
    for (const std::string& component : components)
      nvtxRangePushA(component.c_str());
  }
  ~NvtxRange() {
    for (int i = 0; i < depth_; ++i)
      nvtxRangePop();
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  int depth_;
};

}  // namespace gemmscope
