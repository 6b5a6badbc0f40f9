#pragma once
// What every CUTLASS kernel of kernels/ needs of the GPU: they are built for sm_90a (Hopper's
// wgmma and TMA), which runs on compute capability 9.0 only.

#include <string>

namespace gemmscope::detail {

// The current GPU's SM count; throws Unsupported, naming `what` and the GPU's compute
// capability, unless it is 9.0.
int require_sm90(const std::string& what);

}  // namespace gemmscope::detail
