#pragma once
// CUTLASS's sm90 group tile scheduler, with the tile order of kernels/cutlass/detail/tile_runs.h:
// each cluster takes runs of consecutive tiles, so that it stays in one group for several tiles.
// Included by kernels/cutlass/detail/grouped_gemm_kernel.cuh only.
//
// Why: CUTLASS's group scheduler hands tile t to cluster t mod (clusters in the grid), so with
// small groups (Qwen3-30B-A3B at 128 experts a rank: 192 tiles an expert's Wgrad, 132 SMs) a
// cluster's next tile is in another group almost every time. At every change of group the kernel
// rewrites its copies of the TMA descriptors (A and B in the producer, D in the epilogue) and
// fences them before the next load or store, which a short tile (two k-blocks in that Wgrad)
// cannot hide. Runs cost L2 locality instead: the tiles in flight at once spread over run times
// as many, which loses where each tile's operands are long (measured in
// kernels/cutlass/detail/grouped_gemm_kernel.cuh), so runs are a configuration of their own.
//
// CUTLASS selects a kernel's scheduler by tag, and its sm90 pointer-array kernels take only the
// group scheduler's tag; the selection is specialised here for the problem shape type below,
// which is CUTLASS's own (the kernels see no difference) under a name of ours. The scheduler is
// CUTLASS's, but for the index of each CTA's next tile.

#include <cstdint>

#include <cutlass/gemm/group_array_problem_shape.hpp>
#include <cutlass/gemm/kernel/sm90_tile_scheduler_group.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>

#include "kernels/cutlass/detail/tile_runs.h"

namespace gemmscope::cutlass_grouped {

// CUTLASS's grouped problem shape: (P, Q, K) a group.
struct TileRunProblemShape : cutlass::gemm::GroupProblemShape<cute::Shape<int, int, int>> {};

template <int kPipelineStages>
class TileRunScheduler
    : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90Group<TileRunProblemShape,
                                                                             kPipelineStages> {
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90Group<TileRunProblemShape,
                                                                               kPipelineStages>;

 public:
  struct Arguments : Base::Arguments {
    int run = 1;  // consecutive cluster tiles a cluster takes
  };
  struct Params : Base::Params {
    int run = 1;
  };
  using WorkTileInfo = typename Base::WorkTileInfo;
  using SchedulerResponse = typename Base::SchedulerResponse;

  template <class TileShape, class ClusterShape>
  static Params to_underlying_arguments(TileRunProblemShape problem_shapes, TileShape tile_shape,
                                        ClusterShape cluster_shape,
                                        cutlass::KernelHardwareInfo const& hw_info,
                                        Arguments const& arguments, void* workspace = nullptr,
                                        const uint32_t epilogue_subtile = 1,
                                        uint32_t ktile_start_alignment_count = 1u) {
    Params params;
    static_cast<typename Base::Params&>(params) =
        Base::to_underlying_arguments(problem_shapes, tile_shape, cluster_shape, hw_info, arguments,
                                      workspace, epilogue_subtile, ktile_start_alignment_count);
    params.run = arguments.run;
    return params;
  }

  static bool can_implement(Arguments const& arguments) {
    return arguments.run >= 1 && Base::can_implement(arguments);
  }

  CUTLASS_DEVICE TileRunScheduler(Params const& params, SchedulerResponse* response)
      : Base(params, response) {
#if defined(__CUDA_ARCH__)
    // CUTLASS's first index for this CTA (its constructor's): the CTAs of a cluster are
    // consecutive in it.
    const uint64_t first = params.raster_order_ == Base::RasterOrder::AlongN
                               ? uint64_t(blockIdx.x) + uint64_t(blockIdx.y) * uint64_t(gridDim.x)
                               : uint64_t(blockIdx.x) * uint64_t(gridDim.y) + uint64_t(blockIdx.y);
    cluster_size_ = uint64_t(params.cluster_shape_.m()) * uint64_t(params.cluster_shape_.n());
    cluster_ = first / cluster_size_;
    cta_in_cluster_ = first % cluster_size_;
    const uint64_t clusters =
        uint64_t(gridDim.x) * uint64_t(gridDim.y) * uint64_t(gridDim.z) / cluster_size_;
    runs_ = TileRuns::plan(params.blocks_across_problem_ / cluster_size_, clusters,
                           uint64_t(params.run));
#endif
  }

  template <class ClusterShape>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShape) {
    return this->get_current_work_for_linear_idx(linear_index(0));
  }

  // CUTLASS's, but for the index: the scheduler warp calls it and hands the tile to the other
  // warps through the pipeline (Base::fetch_next_work).
  template <typename Pipeline, typename PipelineState>
  CUTLASS_DEVICE auto advance_to_next_work(Pipeline& pipeline, PipelineState producer_state,
                                           uint32_t advance_count = 1) {
    iteration_ += advance_count;
    const WorkTileInfo work_tile = this->get_current_work_for_linear_idx(linear_index(iteration_));
    pipeline.producer_acquire(producer_state);
    if (cute::elect_one_sync()) {
      this->response_ptr_[producer_state.index()] = work_tile;
      cutlass::arch::fence_view_async_shared();
      pipeline.producer_commit(producer_state);
    }
    return cute::make_tuple(work_tile, true);
  }

 private:
  // CUTLASS's linear index (in CTAs) of this CTA's iteration-th tile.
  CUTLASS_DEVICE uint64_t linear_index(uint64_t iteration) const {
    return runs_.cluster_tile(cluster_, iteration) * cluster_size_ + cta_in_cluster_;
  }

  TileRuns runs_;
  uint64_t iteration_ = 0;
  uint64_t cluster_size_ = 1;
  uint64_t cluster_ = 0;
  uint64_t cta_in_cluster_ = 0;
};

}  // namespace gemmscope::cutlass_grouped

namespace cutlass::gemm::kernel::detail {

template <class TileShape, class ClusterShape, uint32_t kPipelineStages>
struct TileSchedulerSelector<GroupScheduler, arch::Sm90, TileShape, ClusterShape, kPipelineStages,
                             gemmscope::cutlass_grouped::TileRunProblemShape> {
  using Scheduler = gemmscope::cutlass_grouped::TileRunScheduler<kPipelineStages>;
};

}  // namespace cutlass::gemm::kernel::detail
