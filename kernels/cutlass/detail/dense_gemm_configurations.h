#pragma once
// Between kernels/cutlass/dense_gemm.cpp, which checks a problem, ranks the configurations and
// plans them, and the kernels/cutlass_dense_gemm_*.cu files, one per CUTLASS instantiation so
// that they compile in parallel. Plain C++: the CUTLASS types stay in the .cu files
// (kernels/cutlass/detail/dense_gemm_kernel.cuh).

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/detail/fp8_block_gemm.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope::cutlass_dense {

using detail::BlockScaling;

enum class Schedule {
  kCooperative,  // two consumer warp groups share each tile (its two 64-row halves)
  kPingpong,     // each consumer warp group has a tile of its own; their mainloops alternate
};

enum class TileScheduler {
  kPersistent,  // data-parallel: whole tiles, handed out in turn to one CTA per SM
  kStreamK,     // tiles of the last waves split along K (CUTLASS's heuristic decides how far)
};

// One checked FP8Block GEMM (kernels/detail/fp8_block_gemm.h).
using Problem = detail::Fp8BlockGemm;

// What a configuration is, for its label and the ranking, and how to plan it.
struct Configuration {
  BlockScaling scaling;
  Schedule schedule;
  TileScheduler scheduler;
  int tile_m, tile_n, tile_k;
  int cluster_m, cluster_n;
  // "" when CUTLASS's can_implement takes the problem, else why not. Needs no GPU.
  std::string (*refusal)(const Problem& problem);
  // The configuration planned for the problem on the current GPU, with the persistent
  // scheduler's swizzle (1, 2, 4 or 8 tiles), labelled `algorithm`.
  std::unique_ptr<GroupedGemm> (*plan)(const Problem& problem, int max_swizzle,
                                       const std::string& algorithm, cudaStream_t stream);
};

// The factory's rules (kernels/cutlass/dense_gemm.cpp says why), here for the tests: the
// persistent scheduler's swizzle for a problem [m, n], and the modelled time that orders the
// configurations (relative; smaller first).
int swizzle_for(const Configuration& config, int64_t m, int64_t n);
double modelled_time(const Configuration& config, int64_t m, int64_t n, int sm_count);

// One function per instantiation, each in the .cu file its name ends with.
Configuration config_1d2d_cooperative_1x2();
Configuration config_1d2d_cooperative_2x1();
Configuration config_1d2d_pingpong_2x1();
Configuration config_1d2d_stream_k_1x2();
Configuration config_1d1d_cooperative_1x2();
Configuration config_1d1d_cooperative_2x1();
Configuration config_1d1d_pingpong_2x1();
Configuration config_1d1d_stream_k_1x2();

}  // namespace gemmscope::cutlass_dense
