#pragma once
// Between kernels/cutlass_dense_gemm.cpp, which checks a problem, ranks the configurations and
// plans them, and the kernels/cutlass_dense_gemm_*.cu files, one per CUTLASS instantiation so
// that they compile in parallel. Plain C++: the CUTLASS types stay in the .cu files
// (kernels/detail/cutlass_dense_gemm_kernel.cuh).

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/grouped_gemm.h"

namespace gemmscope::cutlass_dense {

// The two FP8Block GEMMs (DeepGEMM's names): "1D2D" is 1x128 x 128x128 (Fprop, Dgrad), "1D1D"
// 1x128 x 1x128 (Wgrad).
enum class BlockScaling { k1d2d, k1d1d };

enum class Schedule {
  kCooperative,  // two consumer warp groups share each tile (its two 64-row halves)
  kPingpong,     // each consumer warp group has a tile of its own; their mainloops alternate
};

enum class TileScheduler {
  kPersistent,  // data-parallel: whole tiles, handed out in turn to one CTA per SM
  kStreamK,     // tiles of the last waves split along K (CUTLASS's heuristic decides how far)
};

// One checked FP8Block GEMM in CUTLASS's terms: D[m, n] (BF16, row-major) = A[m, k] · B[n, k]ᵀ,
// A and B E4M3 and K-major, A's scales 1x128, B's 128x128 (1D2D) or 1x128 (1D1D), both in our
// (cuBLASLt's) layouts, quant/fp8_scale_layout.h.
struct Problem {
  BlockScaling scaling = BlockScaling::k1d2d;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  void* d = nullptr;
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
};

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

// The factory's rules (kernels/cutlass_dense_gemm.cpp says why), here for the tests: the
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
