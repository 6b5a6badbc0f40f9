#pragma once
// The device buffers of one quantized copy of a tensor (rowwise or columnwise) in a
// block-scaled recipe: its data and its block scales, allocated only when the copy is wanted.

#include <cstdint>

#include "kernels/device_buffer.h"

namespace gemmscope {

template <typename Scale>
struct CopyBuffers {
  CopyBuffers(bool wanted, int64_t data_bytes, int64_t scale_count)
      : data(wanted ? static_cast<size_t>(data_bytes) : 0),
        scales(wanted ? static_cast<size_t>(scale_count) : 0) {}

  // Bytes a quantizer writes into this copy.
  size_t bytes() const { return data.bytes() + scales.bytes(); }

  DeviceBuffer<uint8_t> data;
  DeviceBuffer<Scale> scales;
};

}  // namespace gemmscope
