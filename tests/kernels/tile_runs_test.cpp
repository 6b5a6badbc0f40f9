// The tile order of kernels/cutlass/detail/tile_runs.h, which the CUTLASS grouped GEMM's tile-run
// scheduler follows: on grids of several sizes and totals (fewer tiles than a round, whole
// rounds, rounds and a tail), every tile is taken once, each cluster's tiles increase (CUTLASS
// finds a tile's group by searching forward), runs are consecutive, the tail is as balanced as
// CUTLASS's order, and a run of 1 is CUTLASS's order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cutlass/detail/tile_runs.h"

namespace gemmscope::cutlass_grouped {
namespace {

// Every cluster's tiles, taken until the next one is past the last tile.
std::vector<std::vector<uint64_t>> tiles_taken(const TileRuns& runs, uint64_t total) {
  std::vector<std::vector<uint64_t>> taken(runs.clusters);
  for (uint64_t cluster = 0; cluster < runs.clusters; ++cluster) {
    for (uint64_t i = 0;; ++i) {
      const uint64_t tile = runs.cluster_tile(cluster, i);
      if (tile >= total)
        break;
      taken[cluster].push_back(tile);
    }
  }
  return taken;
}

TEST(TileRuns, EveryTileOnceInIncreasingRunsWithABalancedTail) {
  for (const uint64_t clusters : {1u, 7u, 66u, 132u}) {
    for (const uint64_t run : {1u, 2u, 4u}) {
      for (const uint64_t total : {uint64_t{1}, clusters * run - 1, clusters * run,
                                   3 * clusters * run, 3 * clusters * run + clusters / 2 + 1}) {
        SCOPED_TRACE(std::to_string(clusters) + " clusters, runs of " + std::to_string(run) + ", " +
                     std::to_string(total) + " tiles");
        const TileRuns runs = TileRuns::plan(total, clusters, run);
        const std::vector<std::vector<uint64_t>> taken = tiles_taken(runs, total);
        std::vector<uint64_t> every;
        size_t fewest = SIZE_MAX, most = 0;
        for (uint64_t cluster = 0; cluster < clusters; ++cluster) {
          const std::vector<uint64_t>& tiles = taken[cluster];
          EXPECT_TRUE(std::is_sorted(tiles.begin(), tiles.end())) << "cluster " << cluster;
          for (uint64_t i = 0; i + 1 < tiles.size() && i + 1 < runs.run_iterations; ++i) {
            if ((i + 1) % run != 0) {
              EXPECT_EQ(tiles[i + 1], tiles[i] + 1) << "cluster " << cluster << ", step " << i;
            }
          }
          every.insert(every.end(), tiles.begin(), tiles.end());
          fewest = std::min(fewest, tiles.size());
          most = std::max(most, tiles.size());
        }
        std::sort(every.begin(), every.end());
        ASSERT_EQ(every.size(), total);
        for (uint64_t tile = 0; tile < total; ++tile)
          ASSERT_EQ(every[tile], tile) << "a tile taken twice or never";
        EXPECT_LE(most - fewest, 1u) << "clusters' tile counts";
      }
    }
  }
}

TEST(TileRuns, RunsOfOneAreCutlassOrder) {
  const TileRuns runs = TileRuns::plan(1000, 66, 1);
  for (uint64_t cluster : {0u, 13u, 65u})
    for (uint64_t i = 0; i < 20; ++i)
      EXPECT_EQ(runs.cluster_tile(cluster, i), cluster + i * 66);
}

TEST(TileRuns, ARunStaysOnConsecutiveTiles) {
  const TileRuns runs = TileRuns::plan(10 * 66 * 4 + 5, 66, 4);
  EXPECT_EQ(runs.run_iterations, 40u);
  EXPECT_EQ(runs.cluster_tile(0, 0), 0u);
  EXPECT_EQ(runs.cluster_tile(0, 3), 3u);
  EXPECT_EQ(runs.cluster_tile(1, 0), 4u);
  EXPECT_EQ(runs.cluster_tile(0, 4), 66u * 4);     // the next round
  EXPECT_EQ(runs.cluster_tile(2, 40), 2640u + 2);  // the tail: CUTLASS's order again
}

}  // namespace
}  // namespace gemmscope::cutlass_grouped
