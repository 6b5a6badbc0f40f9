// make_cutlass_dense_gemms (kernels/cutlass/dense_gemm.h): checks an FP8Block GEMM, keeps the
// CUTLASS configurations that can run it, orders them and plans each. The kernels themselves
// are in kernels/cutlass/detail/dense_gemm_kernel.cuh, one instantiation per .cu file.
//
// Configurations (tile K 128, one 128-deep scale block per k-tile), each for 1D2D (1x128 x
// 128x128: Fprop, Dgrad) and 1D1D (1x128 x 1x128: Wgrad):
//
//   cooperative 128x128, cluster 1x2   CUTLASS's example 67 and profiler default
//   cooperative 128x128, cluster 2x1   the other operand multicast
//   ping-pong    64x128, cluster 2x1   half the tile: less wave quantization; B multicast
//   cooperative 128x128, cluster 1x2, stream-K   for shapes whose last wave is partial
//
// Why no larger tiles: the blockwise mainloop holds two FP32 accumulators (the wgmma one and
// the promoted one) of a warp group's whole share of the tile; a 64x256 or 128x128 share needs
// 256 registers a thread for them alone, over the 232 (240) the kernel gives its consumers, so
// 128x128 cooperative (64x128 a warp group) and 64x128 ping-pong are what fits. (DeepGEMM's own
// kernels cap tile N at 192 in 1D2D and 160 in 1D1D for the same reason.) Tile N is 128 also
// because 1D2D's weight scales cover 128 columns and CUTLASS wants whole scale blocks per tile.
// A mainloop of our own that hides each promotion under the next k-tile's wgmma, at 128x128
// and 128x192, ran slower than these (docs/results.md; commit da35834 has it).
//
// Order (best first), a first guess that the caller's trials then settle: the modelled time
//
//   waves x tile area x (1.10 for ping-pong) ,  waves = ceil(tiles / CTAs)   (persistent)
//                                               waves = min(that, tiles / CTAs x 1.05) (stream-K)
//
// with the tile counts as CUTLASS pads them (to whole clusters and swizzle groups) and one CTA
// per SM. The 10% stands for ping-pong's serial mainloops: a warp group's FP32 promotion after
// each k-tile stalls the tensor cores, which in the cooperative schedule the other warp group's
// wgmma covers. The 5% stands for stream-K's partial-tile reduction and its memset. Ties keep
// the list order above.
//
// Swizzle (the persistent scheduler's runtime option): CUTLASS groups `swizzle` tile rows (or
// columns) so that one wave reuses a few operand tiles through L2 instead of streaming all of
// one operand, but it rounds each tile count up to swizzle x cluster and runs the padding on
// zeros: the largest of 8, 4, 2 that pads nothing beyond the cluster's own rounding, else 1.

#include "kernels/cutlass/dense_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cutlass/detail/dense_gemm_configurations.h"
#include "kernels/detail/fp8_block_gemm.h"
#include "kernels/detail/sm90_device.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {

namespace cutlass_dense {
namespace {

// The rule's allowances (see the top of the file).
constexpr double kPingpongAllowance = 1.10;
constexpr double kStreamKAllowance = 1.05;

// How many tiles CUTLASS's scheduler hands out: each count rounded up to swizzle x cluster.
int64_t scheduled_tiles(const Configuration& config, int64_t m, int64_t n, int64_t swizzle) {
  return round_up(ceil_div(m, config.tile_m), swizzle * config.cluster_m) *
         round_up(ceil_div(n, config.tile_n), swizzle * config.cluster_n);
}

}  // namespace

int swizzle_for(const Configuration& config, int64_t m, int64_t n) {
  // CUTLASS's own cap (get_log_swizzle_size): 8 needs 6 tiles each way, 4 needs 3, 2 needs 2.
  const int64_t fewest = std::min(ceil_div(m, config.tile_m), ceil_div(n, config.tile_n));
  for (const auto& [swizzle, needs] : {std::pair{8, 6}, std::pair{4, 3}, std::pair{2, 2}}) {
    if (fewest >= needs &&
        scheduled_tiles(config, m, n, swizzle) == scheduled_tiles(config, m, n, 1))
      return swizzle;
  }
  return 1;
}

double modelled_time(const Configuration& config, int64_t m, int64_t n, int sm_count) {
  const double tiles =
      static_cast<double>(scheduled_tiles(config, m, n, swizzle_for(config, m, n)));
  const int cluster = config.cluster_m * config.cluster_n;
  const double ctas = std::max(1, sm_count / cluster * cluster);
  double waves = std::ceil(tiles / ctas);
  if (config.scheduler == TileScheduler::kStreamK)
    waves = std::min(waves, tiles / ctas * kStreamKAllowance);
  const double time = waves * config.tile_m * config.tile_n;
  return config.schedule == Schedule::kPingpong ? time * kPingpongAllowance : time;
}

}  // namespace cutlass_dense

namespace {

using cutlass_dense::BlockScaling;
using cutlass_dense::Configuration;
using cutlass_dense::Problem;
using cutlass_dense::Schedule;
using cutlass_dense::TileScheduler;

constexpr const char* kName = "CUTLASS dense GEMM";

// Every instantiation, in the order that breaks the ranking's ties.
const std::vector<Configuration>& configurations() {
  static const std::vector<Configuration> all = {
      cutlass_dense::config_1d2d_cooperative_1x2(), cutlass_dense::config_1d2d_cooperative_2x1(),
      cutlass_dense::config_1d2d_pingpong_2x1(),    cutlass_dense::config_1d2d_stream_k_1x2(),
      cutlass_dense::config_1d1d_cooperative_1x2(), cutlass_dense::config_1d1d_cooperative_2x1(),
      cutlass_dense::config_1d1d_pingpong_2x1(),    cutlass_dense::config_1d1d_stream_k_1x2(),
  };
  return all;
}

// "cooperative 128x128x128, cluster 1x2, persistent"
std::string describe(const Configuration& c) {
  return std::string(c.schedule == Schedule::kCooperative ? "cooperative " : "ping-pong ") +
         std::to_string(c.tile_m) + "x" + std::to_string(c.tile_n) + "x" +
         std::to_string(c.tile_k) + ", cluster " + std::to_string(c.cluster_m) + "x" +
         std::to_string(c.cluster_n) +
         (c.scheduler == TileScheduler::kStreamK ? ", stream-K" : ", persistent");
}

const char* scaling_name(BlockScaling scaling) {
  return scaling == BlockScaling::k1d2d ? "1x128 x 128x128" : "1x128 x 1x128";
}

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_dense_gemms(const GemmProblem& problem,
                                                                   cudaStream_t stream) {
  const Problem checked = detail::check_fp8_block_gemm(problem, kName);
  std::vector<const Configuration*> runnable;
  std::string refused;
  for (const Configuration& config : configurations()) {
    if (config.scaling != checked.scaling)
      continue;
    const std::string why = config.refusal(checked);
    if (why.empty()) {
      runnable.push_back(&config);
    } else {
      refused += (refused.empty() ? "" : "; ") + describe(config) + ": " + why;
    }
  }
  const std::string kind = std::string(scaling_name(checked.scaling)) + " block scales";
  if (runnable.empty())
    throw Unsupported(std::string(kName) + ": no configuration for " + kind + " runs " +
                      std::to_string(checked.m) + "x" + std::to_string(checked.k) + "x" +
                      std::to_string(checked.n) + " (" + refused + ")");

  const int sm_count = detail::require_sm90(kName);
  std::stable_sort(runnable.begin(), runnable.end(), [&](const auto* a, const auto* b) {
    return cutlass_dense::modelled_time(*a, checked.m, checked.n, sm_count) <
           cutlass_dense::modelled_time(*b, checked.m, checked.n, sm_count);
  });
  std::vector<std::unique_ptr<GroupedGemm>> gemms;
  for (const Configuration* config : runnable) {
    const int swizzle = cutlass_dense::swizzle_for(*config, checked.m, checked.n);
    gemms.push_back(config->plan(checked, swizzle,
                                 "CUTLASS sm90 FP8 " + kind + " (" + describe(*config) +
                                     ", swizzle " + std::to_string(swizzle) + ")",
                                 stream));
  }
  return gemms;
}

}  // namespace gemmscope
