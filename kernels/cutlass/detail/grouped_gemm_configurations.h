#pragma once
// What kernels/cutlass/grouped_gemm.cu (the checks, the choice of kind, the order) needs to know
// of the CUTLASS configurations that kernels/cutlass_grouped_gemm_*.cu instantiate, one file per
// kind so that they compile in parallel. Plain C++: no CUTLASS header is needed to include it.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/gemm_problem.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope::cutlass_grouped {

inline constexpr const char* kName = "CUTLASS grouped GEMM";
// TMA's unit: every stored row and base address is a multiple of it.
inline constexpr int kTmaAlignmentBytes = 16;
inline constexpr int kScaleBlock = 128;  // 1x128 and 128x128 scale blocks

// Where the right operand's 128x128 scales must be copied before every run: our layout
// (BLK128x128_32F, each row of K blocks padded to a multiple of 4) into the unpadded one that
// CUTLASS's sm90 pointer-array kernel derives. Every group has the same blocks (Fprop, Dgrad).
struct WeightScaleRepack {
  int64_t row_blocks = 0;       // ceil(Q / 128)
  int64_t k_blocks = 0;         // ceil(K / 128): CUTLASS's row length
  int64_t padded_k_blocks = 0;  // roundup(k_blocks, 4): ours

  int64_t group_scales() const { return row_blocks * k_blocks; }
};

// Copies every group's scales, sources[g] in our layout, to destination + g * group_scales() in
// CUTLASS's: one small kernel on `stream` (kernels/cutlass/grouped_gemm.cu).
void repack_weight_scales(const WeightScaleRepack& repack, const float* const* sources,
                          float* destination, int64_t groups, cudaStream_t stream);

// What a configuration's plan needs beyond the groups.
struct PlanOptions {
  std::string kind;  // the algorithm label's tail: "tensorwise E4M3 x E4M3, fast accum", ...
  std::optional<WeightScaleRepack> repack;
};

// Average rows a group (P), the measure the configurations are ordered by
// (kernels/cutlass/grouped_gemm.cu).
enum GroupSizes : unsigned {
  kSmallGroups = 1,   // at most 128 rows, or Q at most 128
  kMediumGroups = 2,  // more
  kLargeGroups = 4,   // at least 1024 rows
};

// `tile_run`: the configuration's (Configuration::tile_run), a scheduler argument.
using MakePlan = std::unique_ptr<GroupedGemm> (*)(const std::vector<GemmProblem>& groups,
                                                  const std::string& algorithm,
                                                  const PlanOptions& options, int tile_run,
                                                  cudaStream_t stream);

// One instantiated kernel and the order it takes its tiles in: its schedule, CTA tile
// (M x N x K), cluster (M x N) and epilogue subtile, its tile runs (an argument, not an
// instantiation: kernels/cutlass/detail/tile_run_scheduler.cuh), the group sizes it is meant
// for, and the factory of its plan (throws Unsupported when CUTLASS's can_implement refuses the
// groups).
struct Configuration {
  const char* schedule;  // "cooperative" or "ping-pong"
  int tile_m, tile_n, tile_k;
  int cluster_m, cluster_n;
  int epilogue_n;      // the epilogue subtile's width; 0: CUTLASS's choice
  int tile_run;        // consecutive tiles a cluster takes; 1: CUTLASS's order
  unsigned meant_for;  // GroupSizes
  MakePlan make;

  // "cooperative 128x128x128, cluster 1x2" (then ", epilogue 128x64" and ", tile runs of 4"
  // where they are set)
  std::string name() const {
    return std::string(schedule) + " " + std::to_string(tile_m) + "x" + std::to_string(tile_n) +
           "x" + std::to_string(tile_k) + ", cluster " + std::to_string(cluster_m) + "x" +
           std::to_string(cluster_n) +
           (epilogue_n == 0
                ? ""
                : ", epilogue " + std::to_string(tile_m) + "x" + std::to_string(epilogue_n)) +
           (tile_run == 1 ? "" : ", tile runs of " + std::to_string(tile_run));
  }
};

// The configurations of each kind, best first for the group sizes each names; defined by the
// file that instantiates them. BF16 in the three layouts the passes launch (letters as
// cuBLAS's, right operand first: T = K-major): Fprop TN, Dgrad NN, Wgrad NT.
std::vector<Configuration> bf16_tn_configurations();
std::vector<Configuration> bf16_nn_configurations();
std::vector<Configuration> bf16_nt_configurations();
// FP8 tensorwise, TN: Fprop's E4M3 x E4M3 with fast accumulation; Dgrad's and Wgrad's
// E5M2 (gradient) x E4M3 with split accumulation.
std::vector<Configuration> tensorwise_fprop_configurations();
std::vector<Configuration> tensorwise_gradient_configurations();
// FP8 block scales, E4M3, TN, split accumulation: 1x128 x 128x128 (Fprop, Dgrad) and
// 1x128 x 1x128 (Wgrad).
std::vector<Configuration> block_1d_by_2d_configurations();
std::vector<Configuration> block_1d_by_1d_configurations();
// FP8 rowwise (FP8Rowwise), E4M3 x E4M3, TN, a scale vector a side in the epilogue: Fprop with
// fast accumulation, Dgrad and Wgrad with split accumulation, as torchao's rowwise recipe.
std::vector<Configuration> rowwise_fprop_configurations();
std::vector<Configuration> rowwise_gradient_configurations();

}  // namespace gemmscope::cutlass_grouped
