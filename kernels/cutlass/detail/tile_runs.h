#pragma once
// The order in which a persistent grouped kernel's clusters take their tiles when each takes runs
// of consecutive tiles (kernels/cutlass/detail/tile_run_scheduler.cuh says why). Plain C++ with
// the index arithmetic alone, so that a host test can check it on every grid.

#include <cstdint>

#include "quant/host_device.h"

namespace gemmscope::cutlass_grouped {

// Tiles are numbered in the scheduler's order over every group, in clusters of tiles (a cluster
// of CTAs takes one a time). In rounds of clusters x run, cluster c takes tiles
// [c x run, (c + 1) x run) of the round; after the last whole round each cluster takes every
// clusters-th tile, as CUTLASS's own scheduler does from the start, so the tail is as balanced as
// CUTLASS's. A run of 1 is CUTLASS's order. Each cluster's tiles increase, and every tile is
// taken once.
struct TileRuns {
  uint64_t run = 1;
  uint64_t clusters = 1;        // in the grid
  uint64_t run_iterations = 0;  // the iterations in whole rounds

  // total_clusters: the cluster tiles of every group together; run and clusters at least 1.
  GEMMSCOPE_HOST_DEVICE static TileRuns plan(uint64_t total_clusters, uint64_t clusters,
                                             uint64_t run) {
    return {run, clusters, total_clusters / (clusters * run) * run};
  }

  // The cluster tile that cluster `cluster` takes at its iteration-th step.
  GEMMSCOPE_HOST_DEVICE uint64_t cluster_tile(uint64_t cluster, uint64_t iteration) const {
    if (iteration < run_iterations)
      return (iteration / run * clusters + cluster) * run + iteration % run;
    return run_iterations * clusters + cluster + (iteration - run_iterations) * clusters;
  }
};

}  // namespace gemmscope::cutlass_grouped
