#pragma once
// One launch that quantizes every group of a grouped operand, each group a tensor of its own
// (quant/grouped_operand_layout.h): the tile walk of quantize_tile.cuh over all groups at once,
// so the launch count does not grow with the groups.
//
// Each group with rows has its own kernel parameters (`Params`, the single-tensor kernel's, whose
// TileGrid `grid` is the group's), in device memory, uploaded once. Its data tiles follow the
// previous group's in one flat numbering, and a CTA finds the group of a tile by a binary search
// over the groups' first tiles; within its group a tile is where the single-tensor kernel puts
// it, so every element, scale and random-rounding index is the group's own. Padding CTAs follow
// the data CTAs, each group's share after the previous group's.

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/detail/grouped_tiles.h"
#include "quant/detail/launch_checks.h"
#include "quant/detail/quantize_tile.cuh"

namespace gemmscope::detail {

// The kernel's argument: the uploaded tables and the launch's CTA split.
template <typename Params>
struct GroupedLaunch {
  const Params* params;
  const int64_t* first_tiles;         // [groups + 1]
  const int64_t* first_padding_ctas;  // [groups + 1]
  int groups;
  int64_t tiles;
  int64_t data_ctas;  // CTAs that walk the data tiles
};

// Builds the tables from the parameters of each group with rows, their grids made by
// make_tile_grid, for a [rows, cols] grouped input. Throws std::invalid_argument for more groups
// than an int counts or more CTAs (one per tile) than a grid holds.
template <typename Params>
GroupedTileTables make_grouped_tile_tables(const std::vector<Params>& params, int64_t rows,
                                           int64_t cols, const std::string& context) {
  if (params.size() > static_cast<size_t>(INT_MAX))
    throw std::invalid_argument(context + ": too many groups");
  std::vector<int64_t> tiles;
  std::vector<int64_t> padding;
  for (const Params& p : params) {
    tiles.push_back(p.grid.data_tiles);
    padding.push_back(
        padding_ctas(p.grid.rowwise_padding, p.grid.columnwise_padding, kTileThreads));
  }
  GroupedTileTables t;
  t.params = t.tables.add(params);
  const std::vector<int64_t> first_tiles = first_items(tiles);
  const std::vector<int64_t> first_padding = first_items(padding);
  t.first_tiles = t.tables.add(first_tiles);
  t.first_padding_ctas = t.tables.add(first_padding);
  t.groups = static_cast<int>(params.size());
  t.tiles = first_tiles.back();
  t.padding_ctas = first_padding.back();
  checked_grid(t.tiles + t.padding_ctas, rows, cols, context);
  return t;
}

// A group's buffers of one copy: the copy's whole buffers at the group's offsets (a buffer that
// is null, of a copy not written, stays null).
template <typename CopyBuffers>
CopyBuffers group_buffers(const CopyBuffers& whole, int64_t data_offset, int64_t scale_offset) {
  CopyBuffers group;
  group.data = whole.data == nullptr ? nullptr : whole.data + data_offset;
  group.scale = whole.scale == nullptr ? nullptr : whole.scale + scale_offset;
  return group;
}

// The launch's argument with at most `max_data_ctas` data CTAs (one per tile if fewer tiles).
template <typename Params>
GroupedLaunch<Params> grouped_launch(const GroupedTileTables& t, int64_t max_data_ctas,
                                     const std::string& context) {
  GroupedLaunch<Params> launch;
  launch.params = t.tables.device_table<Params>(t.params, context);
  launch.first_tiles = t.tables.device_table<int64_t>(t.first_tiles, context);
  launch.first_padding_ctas = t.tables.device_table<int64_t>(t.first_padding_ctas, context);
  launch.groups = t.groups;
  launch.tiles = t.tiles;
  launch.data_ctas = t.tiles < max_data_ctas ? t.tiles : (max_data_ctas > 0 ? max_data_ctas : 1);
  return launch;
}

// The launch's grid: its data CTAs, then the padding CTAs (at most one CTA per tile, which
// make_grouped_tile_tables checked).
template <typename Params>
unsigned grouped_grid(const GroupedLaunch<Params>& launch, const GroupedTileTables& t) {
  return static_cast<unsigned>(launch.data_ctas + t.padding_ctas);
}

// The group that holds flat item `item` of a numbering whose groups start at `first` (non-
// decreasing): the last of the first `groups` with first[g] <= item. A group without items is
// never the answer for an item below the total.
__device__ inline int group_of(const int64_t* first, int groups, int64_t item) {
  int low = 0;
  int high = groups - 1;
  while (low < high) {
    const int mid = static_cast<int>(static_cast<unsigned>(low + high + 1) / 2);
    if (__ldg(first + mid) <= item) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

// In a padding CTA: writes its share of its group's padding and returns true.
template <typename Params>
__device__ inline bool handled_as_grouped_padding_cta(const GroupedLaunch<Params>& launch) {
  const int64_t cta = static_cast<int64_t>(blockIdx.x) - launch.data_ctas;
  if (cta < 0)
    return false;
  const int g = group_of(launch.first_padding_ctas, launch.groups, cta);
  const int64_t first = __ldg(launch.first_padding_ctas + g);
  write_padding_share(launch.params[g].grid, cta - first,
                      __ldg(launch.first_padding_ctas + g + 1) - first);
  return true;
}

// A tile of the flat numbering: its group and its row-major index in the group's grid.
struct GroupedTile {
  int group;
  int64_t tile;
};

// Where tile `tile` (row-major) of a group's grid lies. Tile counts fit 32 bits (a launch has a
// CTA per tile at most), and a 32-bit division is a fraction of a 64-bit one's cost, paid per
// tile.
__device__ inline TilePosition tile_in_group(const TileGrid& grid, int64_t tile) {
  const auto index = static_cast<uint32_t>(tile);
  const auto col_tiles = static_cast<uint32_t>(grid.col_tiles);
  return tile_at(grid, index / col_tiles, index % col_tiles);
}

// Flat tile `tile`, whose group is known to be at most `last_group`.
template <typename Params>
__device__ inline GroupedTile grouped_tile(const GroupedLaunch<Params>& launch, int64_t tile,
                                           int last_group) {
  int group = last_group;
  if (tile < __ldg(launch.first_tiles + group))
    group = group_of(launch.first_tiles, group, tile);
  return GroupedTile{group, tile - __ldg(launch.first_tiles + group)};
}

// The tile of a CTA that has exactly one: flat tile blockIdx.x.
template <typename Params>
__device__ inline GroupedTile grouped_tile_of_cta(const GroupedLaunch<Params>& launch) {
  return grouped_tile(launch, blockIdx.x, launch.groups - 1);
}

// A data CTA's place in the walk of the tiles (as TileCursor, over all groups): CTA b takes
// walk steps b, b + data_ctas, ..., step s being flat tile tiles - 1 - s, so the walk goes
// bottom-up through the groups from the last, as the single-tensor walk goes through a tensor.
struct GroupedCursor {
  int64_t step;
  GroupedTile at;
};

template <typename Params>
__device__ inline GroupedCursor first_grouped_tile(const GroupedLaunch<Params>& launch) {
  const int64_t step = blockIdx.x;
  return GroupedCursor{step, grouped_tile(launch, launch.tiles - 1 - step, launch.groups - 1)};
}

// Moves `cursor` data_ctas steps on; the group it reaches is at most the current one.
template <typename Params>
__device__ inline void advance_grouped_tile(const GroupedLaunch<Params>& launch,
                                            GroupedCursor& cursor) {
  cursor.step += launch.data_ctas;
  if (cursor.step < launch.tiles)
    cursor.at = grouped_tile(launch, launch.tiles - 1 - cursor.step, cursor.at.group);
}

template <typename Params>
__device__ inline bool is_grouped_data_tile(const GroupedLaunch<Params>& launch,
                                            const GroupedCursor& cursor) {
  return cursor.step < launch.tiles;
}

}  // namespace gemmscope::detail
