// make_cutlass_grouped_gemms (kernels/cutlass/grouped_gemm.h): CUTLASS's Hopper pointer-array
// grouped GEMM for BF16 and the FP8 recipes. Each configuration is one persistent sm_90a kernel
// (TMA loads, warp-specialized wgmma, cooperative or ping-pong) that walks every group's tiles;
// each group's pointers, strides, sizes and scales come from device arrays written once at
// construction, so run() enqueues that one kernel (plus, for some weights, the scale repack
// below). The kernels and their configurations are in
// kernels/cutlass/detail/grouped_gemm_kernel.cuh, instantiated one kind a file
// (kernels/cutlass/grouped/<kind>.cu) so that they compile in parallel; this file checks the
// groups, picks the kind and orders its configurations.
//
// CUTLASS roles: A = left [P, K], B = right [K, Q], D = output [P, Q] row-major BF16; no C
// (beta is 0). Per-group problem (M, N, K) = (P, Q, K): Fprop and Dgrad vary M, Wgrad varies K
// (the K-grouped form; K is the row index of its operands, so any count of rows a group is fine
// for TMA). TMA needs every stored row (the stride between rows) and every base address to be a
// multiple of 16 bytes: BF16 rows a multiple of 8 elements, FP8 rows of 16; groups that are not
// are refused with the reason.
//
// Kinds (anything else is Unsupported):
//   BF16 in the three layouts the BF16 recipe launches (bench/pass_tensors.h; letters as
//   cuBLAS's, right operand first, T = K-major): Fprop TN, Dgrad NN (W stored [K, Q]), Wgrad NT
//   (dY stored [K, P], X stored [K, Q]). FP32 accumulation, alpha 1.
//   FP8 tensorwise (FP8Current, FP8Delayed), TN: the recipes' two GEMMs only, E4M3 x E4M3 with
//   fast accumulation (Fprop) and E5M2 x E4M3 with split accumulation (the E5M2 gradient is the
//   left operand of Dgrad and Wgrad; CUTLASS promotes to FP32 every 4 wgmma k-blocks).
//   D = bf16((s_left * s_right) · acc): the epilogue reads both FP32 scales of each group
//   through two pointer arrays and multiplies them (Sm90ScalarBroadcastPtrArray, BroadcastCount
//   2). The scales change every step in autocast mode; reading them in the kernel, as cuBLASLt
//   reads its A/B scale pointers, needs no alpha kernel and no per-group alpha buffer that a
//   second stream could race on.
//   FP8Block, E4M3, TN, split: the mainloop scales each 128-deep K block's partial sums by the
//   left row's 1x128 scale and the right's 128x128 (Fprop, Dgrad) or 1x128 (Wgrad) scale.
//   FP8Rowwise, E4M3 x E4M3, TN, fast accumulation in Fprop, split in Dgrad and Wgrad:
//   D = bf16(s_right[q] * (s_left[p] * acc)), each group's two FP32 vectors (one a stored row of
//   each operand) read in the epilogue through pointer arrays (a row and a column broadcast).
//
// Block-scale layouts. CUTLASS 4.2's sm90 pointer-array kernel ignores the per-group scale
// layouts it is given and derives them on the device from the group's (M, N, K)
// (ScaleConfig::tile_atom_to_shape_SF*). Ours are cuBLASLt's (quant/fp8/scale_layout.h). Per
// operand, with kb = ceil(K/128) and qb = ceil(Q/128):
//
//   left 1x128     ours     VEC128_32F [kb][roundup(P,4)], P fastest
//                  CUTLASS  SFA MN-major, shape ((1,P),(128,kb)), stride ((0,1),(0,P))
//                  same if  P % 4 == 0 or kb == 1; otherwise refused
//   right 128x128  ours     BLK128x128_32F [qb][roundup(kb,4)], K blocks fastest
//                  CUTLASS  SFB K-major, shape ((128,qb),(128,kb)), stride ((0,kb),(0,1))
//                  same if  kb % 4 == 0 or qb == 1; otherwise repacked
//   right 1x128    ours     VEC128_32F [kb][roundup(Q,4)], Q fastest
//                  CUTLASS  SFB MN-major, shape ((1,Q),(128,kb)), stride ((0,1),(0,Q))
//                  same if  Q % 4 == 0 or kb == 1 (always: the output already needs Q % 8 == 0)
//
// Padding slots are never read (the kernel predicates its scale loads on M, N and K). The FP8
// recipes pad each expert's rows to 16, so P fits in Fprop and Dgrad; in Wgrad P and Q are the
// layer's widths. The 128x128 weights fit when kb is a multiple of 4: K = 2048, 4096, 7168 do;
// K = 768 (Qwen3-30B-A3B's expert_down Fprop, kb = 6) does not. There run() first copies every
// group's weight scales into CUTLASS's unpadded layout with one small kernel (repack_weight_scales
// below), inside the timed run, so that its cost counts and new scales (autocast quantizes every
// step) are read each time. It moves G * qb * kb floats, 48 KiB for Qwen3's 128 experts of
// 2048 x 768 (qb 16, kb 6): one launch of a few microseconds beside a GEMM of about 170 (32768
// rows at 600 TFLOP/s). No stride can express the padded layout instead.
//
// The order (make_cutlass_grouped_gemms returns every configuration of the kind that can run
// the groups, best first): the groups' average rows P decide, as PyTorch decides between its
// grouped kernels. Small groups (at most 128 rows on average, or Q at most 128) put the
// configurations meant for them (64-row ping-pong tiles) first; large ones (1024 rows and more:
// DeepSeek-V3's experts, and the K-grouped Wgrad of the models here, whose P is a layer's width)
// the wide tiles; the others the 128-row tiles (BF16: PyTorch's two, by its rule). The rest
// follow in their listed order. A caller that times them (--grouped=auto) keeps the fastest; one
// that cannot takes the first.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cute/tensor.hpp>
#include <cutlass/detail/blockwise_scale_layout.hpp>

#include "kernels/cutlass/detail/grouped_gemm_configurations.h"
#include "kernels/cutlass/grouped_gemm.h"
#include "kernels/detail/sm90_device.h"
#include "kernels/grouped_problems.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/format_names.h"
#include "quant/fp8/scale_layout.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "this file is built for sm_90a only (see kernels/cutlass/CMakeLists.txt)"
#endif

namespace gemmscope {
namespace cutlass_grouped {

// ---- The weight-scale repack (WeightScaleRepack) ---------------------------------------------

namespace {

__global__ void repack_weight_scales_kernel(WeightScaleRepack repack, const float* const* sources,
                                            float* destination, int64_t total) {
  const int64_t per_group = repack.row_blocks * repack.k_blocks;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t g = i / per_group, slot = i % per_group;
    const int64_t row_block = slot / repack.k_blocks, k_block = slot % repack.k_blocks;
    destination[i] = sources[g][row_block * repack.padded_k_blocks + k_block];
  }
}

}  // namespace

void repack_weight_scales(const WeightScaleRepack& repack, const float* const* sources,
                          float* destination, int64_t groups, cudaStream_t stream) {
  constexpr int kThreads = 256;
  constexpr int64_t kMaxBlocks = 1024;
  const int64_t total = groups * repack.group_scales();
  const int blocks = static_cast<int>(std::min(ceil_div(total, kThreads), kMaxBlocks));
  repack_weight_scales_kernel<<<blocks, kThreads, 0, stream>>>(repack, sources, destination, total);
  CUDA_CHECK(cudaGetLastError());
}

namespace {

// Group sizes by average rows P (the order above).
constexpr int64_t kSmallGroupRows = 128;
constexpr int64_t kLargeGroupRows = 1024;

// ---- Kinds --------------------------------------------------------------------------------------

enum class Kind {
  kBf16Tn,
  kBf16Nn,
  kBf16Nt,
  kTensorwiseFprop,     // E4M3 x E4M3, fast accumulation
  kTensorwiseGradient,  // E5M2 x E4M3, split accumulation
  kBlock1dBy2d,
  kBlock1dBy1d,
  kRowwiseFprop,     // E4M3 x E4M3, a vector a side, fast accumulation
  kRowwiseGradient,  // E4M3 x E4M3, a vector a side, split accumulation
};

// What the algorithm label calls each kind ("CUTLASS sm90 grouped <precision> (ptr-array,
// <configuration>, <name>)") and where its configurations are, in Kind's order.
struct KindEntry {
  const char* precision;
  const char* name;
  std::vector<Configuration> (*configurations)();
};

const KindEntry& entry(Kind kind) {
  static const KindEntry kEntries[] = {
      {"BF16", "TN", bf16_tn_configurations},
      {"BF16", "NN", bf16_nn_configurations},
      {"BF16", "NT", bf16_nt_configurations},
      {"FP8", "tensorwise E4M3 x E4M3, fast accum", tensorwise_fprop_configurations},
      {"FP8", "tensorwise E5M2 x E4M3, split accum", tensorwise_gradient_configurations},
      {"FP8", "1x128 x 128x128 block scales", block_1d_by_2d_configurations},
      {"FP8", "1x128 x 1x128 block scales", block_1d_by_1d_configurations},
      {"FP8", "rowwise E4M3 x E4M3, fast accum", rowwise_fprop_configurations},
      {"FP8", "rowwise E4M3 x E4M3, split accum", rowwise_gradient_configurations},
  };
  return kEntries[static_cast<int>(kind)];
}

// ---- Checks -------------------------------------------------------------------------------------

std::string group_dims(const GemmProblem& group, size_t g) {
  return "group " + std::to_string(g) + " (" + std::to_string(group.left.outer()) + "x" +
         std::to_string(group.left.contraction()) + "x" + std::to_string(group.right.outer()) + ")";
}

bool is_fp8(ElementFormat format) {
  return format == ElementFormat::kE4M3 || format == ElementFormat::kE5M2;
}

int64_t element_bytes(ElementFormat format) {
  return format == ElementFormat::kBF16 ? 2 : 1;
}

bool aligned_16(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % kTmaAlignmentBytes == 0;
}

Kind bf16_kind(const GemmProblem& first) {
  const QuantizedTensor& left = first.left.tensor;
  const QuantizedTensor& right = first.right.tensor;
  if (left.scale != nullptr || right.scale != nullptr || left.tensor_scale != nullptr ||
      right.tensor_scale != nullptr) {
    throw Unsupported(std::string(kName) + ": BF16 operands take no scales");
  }
  if (first.left.k_major)
    return first.right.k_major ? Kind::kBf16Tn : Kind::kBf16Nn;
  if (!first.right.k_major)
    return Kind::kBf16Nt;
  throw Unsupported(std::string(kName) +
                    " is instantiated for BF16 in the layouts the passes launch (right operand "
                    "first, T = K-major): Fprop TN, Dgrad NN, Wgrad NT; these groups are TT (left "
                    "stored [K, P], right [Q, K])");
}

Kind fp8_kind(const GemmProblem& first) {
  const QuantizedTensor& left = first.left.tensor;
  const QuantizedTensor& right = first.right.tensor;
  if (!first.left.k_major || !first.right.k_major) {
    throw Unsupported(std::string(kName) +
                      " needs both FP8 operands K-major (TN), the only layout of Hopper's FP8 "
                      "tensor cores; the " +
                      (first.left.k_major ? "right" : "left") + " operand is not");
  }
  if (left.tensor_scale != nullptr || right.tensor_scale != nullptr) {
    throw Unsupported(std::string(kName) +
                      " takes no second, per-tensor scaling level (NVFP4's); FP8 has none");
  }
  const bool tensorwise =
      left.scale_layout == ScaleLayout::kTensor && right.scale_layout == ScaleLayout::kTensor;
  const bool blockwise = left.scale_layout == ScaleLayout::kVec128 &&
                         (right.scale_layout == ScaleLayout::kBlock128x128 ||
                          right.scale_layout == ScaleLayout::kVec128);
  const bool rowwise =
      left.scale_layout == ScaleLayout::kOuterVec && right.scale_layout == ScaleLayout::kOuterVec;
  if (!tensorwise && !blockwise && !rowwise) {
    throw Unsupported(std::string(kName) +
                      " takes tensorwise scales on both operands, 1x128 left with 128x128 or "
                      "1x128 right, or a vector a row on both; these are " +
                      to_string(left.scale_layout) + " x " + to_string(right.scale_layout));
  }
  const std::string these =
      std::string("; these are ") + to_string(left.format) + " x " + to_string(right.format) +
      (first.fast_accumulation ? " with fast" : " with split") + " accumulation";
  if (rowwise) {
    if (left.format != ElementFormat::kE4M3 || right.format != ElementFormat::kE4M3) {
      throw Unsupported(std::string(kName) +
                        " is instantiated for E4M3 x E4M3 with rowwise "
                        "scales" +
                        these);
    }
    return first.fast_accumulation ? Kind::kRowwiseFprop : Kind::kRowwiseGradient;
  }
  if (blockwise) {
    if (left.format != ElementFormat::kE4M3 || right.format != ElementFormat::kE4M3) {
      throw Unsupported(std::string(kName) + " is instantiated for E4M3 x E4M3 with block scales" +
                        these);
    }
    if (first.fast_accumulation) {
      throw Unsupported(std::string(kName) +
                        ": fast accumulation does not apply to block scales (the kernel promotes "
                        "to FP32 at every 128-deep scale block)");
    }
    return right.scale_layout == ScaleLayout::kBlock128x128 ? Kind::kBlock1dBy2d
                                                            : Kind::kBlock1dBy1d;
  }
  // The tensorwise recipes' two GEMMs; the other two combinations would only cost compile time.
  if (right.format == ElementFormat::kE4M3) {
    if (left.format == ElementFormat::kE4M3 && first.fast_accumulation)
      return Kind::kTensorwiseFprop;
    if (left.format == ElementFormat::kE5M2 && !first.fast_accumulation)
      return Kind::kTensorwiseGradient;
  }
  throw Unsupported(std::string(kName) +
                    " is instantiated for the tensorwise recipes' GEMMs: E4M3 x E4M3 with fast "
                    "accumulation (Fprop) and E5M2 x E4M3 with split accumulation (Dgrad, Wgrad)" +
                    these);
}

// What every group shares (check_grouped_problems makes sure of that), checked against what is
// instantiated.
Kind kind_of(const GemmProblem& first) {
  const ElementFormat left = first.left.tensor.format, right = first.right.tensor.format;
  if (left == ElementFormat::kBF16 && right == ElementFormat::kBF16)
    return bf16_kind(first);
  if (is_fp8(left) && is_fp8(right))
    return fp8_kind(first);
  throw Unsupported(std::string(kName) +
                    " runs BF16 x BF16 or FP8 (E4M3, E5M2) x FP8 operands only; these are " +
                    to_string(left) + " x " + to_string(right));
}

// TMA reads an operand's stored rows: their length (the stride between rows) must be a
// multiple of 16 bytes. That length is K for a K-major operand, else its outer size.
void check_stored_rows(const GemmOperand& operand, const char* outer_name,
                       const std::string& where) {
  const int64_t multiple = kTmaAlignmentBytes / element_bytes(operand.tensor.format);
  if (operand.tensor.cols % multiple != 0) {
    throw Unsupported(where + ": " + (operand.k_major ? "K" : outer_name) +
                      " must be a multiple of " + std::to_string(multiple) +
                      " (16-byte rows for TMA)");
  }
}

// What one group needs of CUTLASS's sizes and TMA's alignment.
void check_group(const GemmProblem& group, size_t g) {
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  const int64_t p = group.left.outer(), q = group.right.outer(), k = group.left.contraction();
  const std::string where = std::string(kName) + ": " + group_dims(group, g);
  if (p > kIntMax || q > kIntMax || k > kIntMax)
    throw Unsupported(where + ": CUTLASS's problem shapes are 32-bit");
  check_stored_rows(group.left, "P", where);
  check_stored_rows(group.right, "Q", where);
  const int64_t output_multiple = kTmaAlignmentBytes / element_bytes(ElementFormat::kBF16);
  if (q % output_multiple != 0) {
    throw Unsupported(where + ": Q must be a multiple of " + std::to_string(output_multiple) +
                      " (16-byte BF16 output rows for TMA)");
  }
  if (!aligned_16(group.left.tensor.data) || !aligned_16(group.right.tensor.data) ||
      !aligned_16(group.output)) {
    throw Unsupported(where + ": TMA needs 16-byte aligned operand and output addresses");
  }
}

// ---- Block-scale layouts ------------------------------------------------------------------------

// CUTLASS's derived scale layouts (the configurations' tiles do not change them).
using Block1dBy2dScales =
    cutlass::detail::Sm90BlockwiseScaleConfig<1, kScaleBlock, kScaleBlock, cute::GMMA::Major::MN,
                                              cute::GMMA::Major::K>;
using Block1dBy1dScales =
    cutlass::detail::Sm90BlockwiseScaleConfig<1, 1, kScaleBlock, cute::GMMA::Major::MN,
                                              cute::GMMA::Major::MN>;

// Whether CUTLASS's derived scale layout `cutlass_layout` of an operand [outer, K] (mode 0 the
// outer index, mode 1 the K index) addresses every scale where `slot(outer_block, k_block)` has
// it. Both are affine in the two block indices, so the origin and one step along each direction
// that has more than one block decide.
template <class CutlassLayout, class Slot>
bool same_scale_layout(const CutlassLayout& cutlass_layout, int64_t outer_granularity,
                       int64_t outer, int64_t k, Slot slot) {
  const auto at = [&](int64_t outer_block, int64_t k_block) {
    return static_cast<int64_t>(cutlass_layout(static_cast<int>(outer_block * outer_granularity),
                                               static_cast<int>(k_block * kScaleBlock), 0));
  };
  const bool several_outer = ceil_div(outer, outer_granularity) > 1;
  const bool several_k = ceil_div(k, kScaleBlock) > 1;
  return at(0, 0) == slot(0, 0) &&
         (!several_outer || at(1, 0) - at(0, 0) == slot(1, 0) - slot(0, 0)) &&
         (!several_k || at(0, 1) - at(0, 0) == slot(0, 1) - slot(0, 0));
}

// Checks the group's left 1x128 scales against CUTLASS's layout (refused where they differ).
template <class ScaleConfig>
void check_left_scales(const GemmProblem& group, size_t g) {
  const int64_t p = group.left.outer(), q = group.right.outer(), k = group.left.contraction();
  const auto mnkl =
      cute::make_shape(static_cast<int>(p), static_cast<int>(q), static_cast<int>(k), 1);
  const bool same = same_scale_layout(
      ScaleConfig::tile_atom_to_shape_SFA(mnkl), 1, p, k,
      [&](int64_t row, int64_t k_block) { return vec128_scale_index(row, k_block, p); });
  if (!same) {
    throw Unsupported(std::string(kName) + ": " + group_dims(group, g) +
                      ": the left operand's 1x128 scales step roundup(P, 4) = " +
                      std::to_string(round_up(p, kScaleRowAlignment)) +
                      " between K blocks (VEC128_32F); CUTLASS's sm90 kernel steps P = " +
                      std::to_string(p) + ": pad the expert's rows to a multiple of 4");
  }
}

// The repack the right operand's 128x128 scales need (none where CUTLASS reads ours as they
// are); refuses groups whose scales CUTLASS reads neither as ours nor as the unpadded layout the
// repack writes.
std::optional<WeightScaleRepack> plan_weight_scales(const std::vector<GemmProblem>& groups) {
  bool needed = false;
  for (size_t g = 0; g < groups.size(); ++g) {
    const GemmProblem& group = groups[g];
    const int64_t q = group.right.outer(), k = group.left.contraction();
    const int64_t k_blocks = ceil_div(k, kScaleBlock);
    const auto layout = Block1dBy2dScales::tile_atom_to_shape_SFB(cute::make_shape(
        static_cast<int>(group.left.outer()), static_cast<int>(q), static_cast<int>(k), 1));
    const auto ours = [&](int64_t row_block, int64_t k_block) {
      return block128_scale_index(row_block, k_block, k);
    };
    const auto unpadded = [&](int64_t row_block, int64_t k_block) {
      return row_block * k_blocks + k_block;
    };
    if (same_scale_layout(layout, kScaleBlock, q, k, ours))
      continue;
    if (!same_scale_layout(layout, kScaleBlock, q, k, unpadded)) {
      throw Unsupported(std::string(kName) + ": " + group_dims(group, g) +
                        ": CUTLASS's sm90 kernel reads the right operand's 128x128 scales in a "
                        "layout that is neither BLK128x128_32F nor its unpadded form");
    }
    needed = true;
  }
  if (!needed)
    return std::nullopt;
  // One repack covers every group (check_grouped_problems: they share Q), so they share K too.
  const int64_t k = groups.front().left.contraction();
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].left.contraction() != k) {
      throw Unsupported(std::string(kName) + ": " + group_dims(groups[g], g) +
                        ": K differs from group 0's, and the groups' 128x128 right scales need a "
                        "repack into CUTLASS's layout, which is planned for groups that share K "
                        "only");
    }
  }
  const int64_t k_blocks = ceil_div(k, kScaleBlock);
  return WeightScaleRepack{ceil_div(groups.front().right.outer(), kScaleBlock), k_blocks,
                           round_up(k_blocks, kScaleRowAlignment)};
}

// Checks the block-scale layouts of every group; returns the weight-scale repack run() needs.
std::optional<WeightScaleRepack> check_block_scales(Kind kind,
                                                    const std::vector<GemmProblem>& groups) {
  if (kind == Kind::kBlock1dBy2d) {
    for (size_t g = 0; g < groups.size(); ++g)
      check_left_scales<Block1dBy2dScales>(groups[g], g);
    return plan_weight_scales(groups);
  }
  if (kind == Kind::kBlock1dBy1d) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const GemmProblem& group = groups[g];
      check_left_scales<Block1dBy1dScales>(group, g);
      const int64_t p = group.left.outer(), q = group.right.outer(), k = group.left.contraction();
      const bool right_same = same_scale_layout(
          Block1dBy1dScales::tile_atom_to_shape_SFB(
              cute::make_shape(static_cast<int>(p), static_cast<int>(q), static_cast<int>(k), 1)),
          1, q, k,
          [&](int64_t row, int64_t k_block) { return vec128_scale_index(row, k_block, q); });
      if (!right_same) {
        throw Unsupported(
            std::string(kName) + ": " + group_dims(group, g) +
            ": the right operand's 1x128 scales step roundup(Q, 4) = " +
            std::to_string(round_up(q, kScaleRowAlignment)) +
            " between K blocks (VEC128_32F); CUTLASS's sm90 kernel steps Q = " + std::to_string(q));
      }
    }
  }
  return std::nullopt;
}

// ---- The order ----------------------------------------------------------------------------------

GroupSizes group_sizes(const std::vector<GemmProblem>& groups) {
  int64_t rows = 0;
  for (const GemmProblem& group : groups)
    rows += group.left.outer();
  const int64_t average = rows / static_cast<int64_t>(groups.size());
  if (average <= kSmallGroupRows || groups.front().right.outer() <= kSmallGroupRows)
    return kSmallGroups;
  return average >= kLargeGroupRows ? kLargeGroups : kMediumGroups;
}

// Tile runs (kernels/cutlass/detail/grouped_gemm_kernel.cuh, kTileRun) pay where each tile's
// contraction is short: the K-grouped Wgrad of 128 experts a rank (256 rows an expert), Fprop and
// Dgrad over K of 768 and 1536. Where the groups' contraction averages 2048 or more they lose:
// up to 30% in the trials at boost clock (the tiles in flight at once no longer share L2), and,
// where the trial cannot tell, at the power cap. BF16 Wgrad at 16 experts a rank (K = 2048 an
// expert), each configuration pinned in a process of its own (H200, 2026-11-28): with runs the
// same board power (690 W) held the SM clock at 1552-1567 MHz, without them at 1625-1636 MHz,
// and the runs were 3-5% slower, yet `--grouped=auto`'s trial, taken while the clock comes down,
// kept them in one process of two. So their configurations are not planned there.
constexpr int64_t kTileRunsBelowContraction = 2048;

bool tile_runs_suit(const std::vector<GemmProblem>& groups) {
  int64_t contraction = 0;
  for (const GemmProblem& group : groups)
    contraction += group.left.contraction();
  return contraction / static_cast<int64_t>(groups.size()) < kTileRunsBelowContraction;
}

// The configurations meant for these groups first, then the others, each in listed order.
std::vector<Configuration> in_order(std::vector<Configuration> listed, GroupSizes sizes) {
  std::stable_partition(listed.begin(), listed.end(),
                        [&](const Configuration& c) { return (c.meant_for & sizes) != 0; });
  return listed;
}

}  // namespace
}  // namespace cutlass_grouped

std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream) {
  using namespace cutlass_grouped;
  check_grouped_problems(groups, kName);
  const Kind kind = kind_of(groups.front());
  for (size_t g = 0; g < groups.size(); ++g)
    check_group(groups[g], g);
  PlanOptions options;
  options.repack = check_block_scales(kind, groups);
  detail::require_sm90(kName);

  const KindEntry& names = entry(kind);
  options.kind = names.name;
  if (options.repack)
    options.kind += ", 128x128 scales repacked";
  std::vector<std::unique_ptr<GroupedGemm>> plans;
  std::string refusals;
  const bool runs_suit = tile_runs_suit(groups);
  for (const Configuration& c : in_order(names.configurations(), group_sizes(groups))) {
    if (c.tile_run > 1 && !runs_suit) {
      refusals += (refusals.empty() ? "" : "; ") + c.name() +
                  ": tile runs lose where the groups' contraction averages " +
                  std::to_string(kTileRunsBelowContraction) + " or more";
      continue;
    }
    const std::string algorithm = std::string("CUTLASS sm90 grouped ") + names.precision +
                                  " (ptr-array, " + c.name() + ", " + options.kind + ")";
    try {
      plans.push_back(c.make(groups, algorithm, options, c.tile_run, stream));
    } catch (const Unsupported& e) {
      refusals += (refusals.empty() ? "" : "; ") + c.name() + ": " + e.what();
    }
  }
  if (plans.empty())
    throw Unsupported(std::string(kName) + ": no configuration runs these groups: " + refusals);
  return plans;
}

}  // namespace gemmscope
