#pragma once
// Quantized copies held on the host: what the reference quantizers produce and what tests copy
// back from the GPU to compare bit for bit.

#include <cstdint>
#include <vector>

namespace gemmscope {

struct HostQuantizedCopy {
  int64_t rows = 0;
  int64_t cols = 0;
  // MXFP8: E4M3 [rows, cols]. NVFP4: E2M1 pairs [rows, cols / 2], first element low nibble.
  std::vector<uint8_t> data;
  // Block scales in the swizzled layout (quant/swizzled_scale_layout.h), padding included.
  std::vector<uint8_t> scale;
  // NVFP4 only: the amax of the values this copy quantized, and 1 / S_enc.
  float amax = 0.0f;
  float tensor_scale = 0.0f;
};

// The copies of one tensor; a copy that was not asked for stays empty.
struct HostQuantizedTensor {
  HostQuantizedCopy rowwise;
  HostQuantizedCopy columnwise;
};

}  // namespace gemmscope
