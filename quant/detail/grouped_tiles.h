#pragma once
// The tables of a grouped quantize launch (MXFP8, NVFP4; see grouped_tiles.cuh), as the host
// keeps them: their image and where each table sits in it.

#include <cstddef>
#include <cstdint>

#include "quant/detail/device_tables.h"

namespace gemmscope::detail {

struct GroupedTileTables {
  DeviceTables tables;
  // Offsets of the tables in `tables`: the kernel parameters of each group with rows, then
  // each such group's first data tile and first padding CTA (and the totals).
  size_t params = 0;
  size_t first_tiles = 0;
  size_t first_padding_ctas = 0;
  int groups = 0;  // with rows
  int64_t tiles = 0;
  int64_t padding_ctas = 0;
};

}  // namespace gemmscope::detail
