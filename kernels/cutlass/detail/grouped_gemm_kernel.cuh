#pragma once
// The CUTLASS side of every grouped GEMM configuration (kernels/cutlass/grouped_gemm.cu says what
// runs and why): the operand kinds, the kernel a (kind, schedule, tile, cluster) builds, and the
// plan that holds one kernel's device arrays and enqueues it. Included by the
// kernels/cutlass_grouped_gemm_*.cu files only, which compile for sm_90a alone.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/kernel_hardware_info.h>
#include <cute/tensor.hpp>
#include <cutlass/detail/blockwise_scale_layout.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/group_array_problem_shape.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include "kernels/cutlass/detail/grouped_gemm_configurations.h"
#include "kernels/cutlass/detail/tile_run_scheduler.cuh"
#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the CUTLASS grouped GEMM is built for sm_90a only (see kernels/cutlass/CMakeLists.txt)"
#endif

namespace gemmscope::cutlass_grouped {

using ProblemShape = TileRunProblemShape;  // (P, Q, K) a group
using ElementOutput = cutlass::bfloat16_t;
using LayoutOutput = cutlass::layout::RowMajor;
inline constexpr int kOutputAlignment = kTmaAlignmentBytes / sizeof(ElementOutput);

// ---- Operand kinds ------------------------------------------------------------------------------

// CUTLASS's A is left [P, K], its B right [K, Q]: K-major left is row-major, K-major right is
// column-major.
template <bool kKMajor>
using LeftLayout =
    std::conditional_t<kKMajor, cutlass::layout::RowMajor, cutlass::layout::ColumnMajor>;
template <bool kKMajor>
using RightLayout =
    std::conditional_t<kKMajor, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;

enum class Scaling {
  kNone,        // BF16
  kTensorwise,  // one FP32 per operand and group, applied in the epilogue
  kBlockwise,   // 1x128 / 128x128 FP32 scales, applied in the mainloop
  kRowwise,     // an FP32 vector per operand and group (one per output row, one per output
                // column), applied in the epilogue
};

// The kernel schedule each of CUTLASS's two persistent warp-specialized schedules takes. FP8
// operands under the plain schedules get CUTLASS's split accumulation (FP32 promotion every 4
// wgmma k-blocks, cuBLASLt's FAST_ACCUM off).
struct PlainAccumulation {
  using Cooperative = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative;
  using Pingpong = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong;
};
struct FastAccumulation {
  using Cooperative = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum;
  using Pingpong = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpongFP8FastAccum;
};
struct BlockwiseAccumulation {
  using Cooperative = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8Blockwise;
  using Pingpong = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpongFP8Blockwise;
};

template <bool kLeftKMajor, bool kRightKMajor>
struct Bf16 {
  static constexpr Scaling kScaling = Scaling::kNone;
  using ElementA = cutlass::bfloat16_t;
  using ElementB = cutlass::bfloat16_t;
  using OperandA = LeftLayout<kLeftKMajor>*;
  using OperandB = RightLayout<kRightKMajor>*;
  using Accumulation = PlainAccumulation;
};

template <class ElementLeft, class Accumulation_>
struct Tensorwise {
  static constexpr Scaling kScaling = Scaling::kTensorwise;
  using ElementA = ElementLeft;
  using ElementB = cutlass::float_e4m3_t;
  using OperandA = LeftLayout<true>*;
  using OperandB = RightLayout<true>*;
  using Accumulation = Accumulation_;
};

// Left 1x128 (SFA MN-major); right 128x128 (SFB K-major) or 1x128 (SFB MN-major).
template <int kRightScaleRows, cute::GMMA::Major kRightScaleMajor>
struct Blockwise {
  static constexpr Scaling kScaling = Scaling::kBlockwise;
  using ScaleConfig =
      cutlass::detail::Sm90BlockwiseScaleConfig<1, kRightScaleRows, kScaleBlock,
                                                cute::GMMA::Major::MN, kRightScaleMajor>;
  using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
  using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());
  using ElementA = cutlass::float_e4m3_t;
  using ElementB = cutlass::float_e4m3_t;
  using OperandA = cute::tuple<LeftLayout<true>*, LayoutSFA*>;
  using OperandB = cute::tuple<RightLayout<true>*, LayoutSFB*>;
  using Accumulation = BlockwiseAccumulation;
};

using Block1dBy2d = Blockwise<kScaleBlock, cute::GMMA::Major::K>;

// FP8Rowwise: E4M3 x E4M3, each group's left rows scaled by its own vector (one per output row),
// its right rows by another (one per output column).
template <class Accumulation_>
struct Rowwise {
  static constexpr Scaling kScaling = Scaling::kRowwise;
  using ElementA = cutlass::float_e4m3_t;
  using ElementB = cutlass::float_e4m3_t;
  using OperandA = LeftLayout<true>*;
  using OperandB = RightLayout<true>*;
  using Accumulation = Accumulation_;
};
using Block1dBy1d = Blockwise<1, cute::GMMA::Major::MN>;

// ---- Kernels ------------------------------------------------------------------------------------

struct Cooperative {
  template <class Accumulation>
  using Mainloop = typename Accumulation::Cooperative;
  using Epilogue = cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative;
  static constexpr const char* kName = "cooperative";
};
struct Pingpong {
  template <class Accumulation>
  using Mainloop = typename Accumulation::Pingpong;
  using Epilogue = cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong;
  static constexpr const char* kName = "ping-pong";
};

// D = bf16(s_left[g] * s_right[g] * acc): scalars 1, 1 (BF16, blockwise) or one pointer array
// per factor (tensorwise). Reading the scales in the kernel, as cuBLASLt reads its A/B scale
// pointers, needs no alpha kernel before the GEMM: autocast's new scales are read when it runs.
using ScaleProduct = cutlass::epilogue::fusion::Sm90ScalarBroadcastPtrArray<
    float, cute::Stride<cute::_0, cute::_0, int64_t>, 2, cutlass::multiplies>;
using OutputOp = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, ElementOutput, float,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    ScaleProduct, cutlass::epilogue::fusion::Sm90AccFetch>;

// FP8Rowwise's epilogue: D = bf16(s_right[n] * (s_left[m] * acc)), each group's two vectors read
// through pointer arrays (CUTLASS's row and column broadcasts take `float*` as their element for
// that: each tile reads the pointer of its group). As PyTorch's torch._scaled_grouped_mm and
// FBGEMM's rowwise grouped GEMM build theirs on sm90; the L stride stays a static 0, since the
// group's pointer is already its own.
template <class Tile>
using RowwiseOutputOp = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, ElementOutput, float,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    cutlass::epilogue::fusion::Sm90RowBroadcast<0, Tile, float*, float,
                                                cute::Stride<cute::_0, cute::_1, cute::_0>>,
    cutlass::epilogue::fusion::Sm90EVT<
        cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, float, float,
                                               cutlass::FloatRoundStyle::round_to_nearest>,
        cutlass::epilogue::fusion::Sm90ColBroadcast<0, Tile, float*, float,
                                                    cute::Stride<cute::_1, cute::_0, cute::_0>>,
        cutlass::epilogue::fusion::Sm90AccFetch>>;

// The epilogue a kind's kernel fuses: the scalar product, or FP8Rowwise's vectors.
template <class Kind, class Tile>
using OutputOpOf =
    std::conditional_t<Kind::kScaling == Scaling::kRowwise, RowwiseOutputOp<Tile>, OutputOp>;

// kEpilogueN: the epilogue's subtile width (its height is the warpgroups' share of the tile:
// 128 rows cooperative, 64 ping-pong); 0 lets CUTLASS choose (32 columns, two in flight).
template <class Kind_, class Schedule_, int kTileM, int kTileN, int kTileK, int kClusterM,
          int kClusterN, int kEpilogueN = 0>
struct Kernel {
  using Kind = Kind_;
  using Schedule = Schedule_;
  using Tile = cute::Shape<cute::Int<kTileM>, cute::Int<kTileN>, cute::Int<kTileK>>;
  using Cluster = cute::Shape<cute::Int<kClusterM>, cute::Int<kClusterN>, cute::_1>;
  using EpilogueTile =
      std::conditional_t<kEpilogueN == 0, cutlass::epilogue::collective::EpilogueTileAuto,
                         cute::Shape<cute::Int<kTileM>, cute::Int<kEpilogueN>>>;
  static constexpr int kAlignmentA = kTmaAlignmentBytes / sizeof(typename Kind::ElementA);
  static constexpr int kAlignmentB = kTmaAlignmentBytes / sizeof(typename Kind::ElementB);

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster, EpilogueTile, float,
      float, void, LayoutOutput*, kOutputAlignment, ElementOutput, LayoutOutput*, kOutputAlignment,
      typename Schedule::Epilogue, OutputOpOf<Kind, Tile>>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, typename Kind::ElementA,
      typename Kind::OperandA, kAlignmentA, typename Kind::ElementB, typename Kind::OperandB,
      kAlignmentB, float, Tile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      typename Schedule::template Mainloop<typename Kind::Accumulation>>::CollectiveOp;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<
      cutlass::gemm::kernel::GemmUniversal<ProblemShape, Mainloop, Epilogue>>;
};

// ---- The plan -----------------------------------------------------------------------------------

// CUTLASS's stride of an operand stored row-major with `leading` elements a row: the mode that
// walks along a stored row is the static 1 (K for K-major operands, P or Q otherwise).
template <class Stride>
Stride stored_rows(int64_t leading) {
  using KMajor = cute::Stride<int64_t, cute::_1, cute::_0>;
  using OuterMajor = cute::Stride<cute::_1, int64_t, cute::_0>;
  static_assert(std::is_same_v<Stride, KMajor> || std::is_same_v<Stride, OuterMajor>,
                "operands and output have one static unit stride and 64-bit leading dimensions");
  if constexpr (std::is_same_v<Stride, KMajor>) {
    return Stride{leading, cute::_1{}, cute::_0{}};
  } else {
    return Stride{cute::_1{}, leading, cute::_0{}};
  }
}

// The block-scale state of a plan: the per-group scale layouts a blockwise kernel's arguments
// carry and, where the weights' scales are repacked, their CUTLASS-layout copy. Empty otherwise.
template <class Kind, bool = Kind::kScaling == Scaling::kBlockwise>
struct BlockScales {};
template <class Kind>
struct BlockScales<Kind, true> {
  DeviceBuffer<typename Kind::LayoutSFA> sfa;
  DeviceBuffer<typename Kind::LayoutSFB> sfb;
  DeviceBuffer<float> repacked;
  DeviceBuffer<const float*> repacked_pointers;
};

// One configuration planned for one list of groups: every group's pointers, strides, sizes and
// scale pointers in device arrays written once here, so run() enqueues the kernel (after the
// weight-scale repack, where one is planned) and nothing else.
template <class K>
class Plan final : public GroupedGemm {
  using Kind = typename K::Kind;
  using Gemm = typename K::Gemm;
  using GemmKernel = typename Gemm::GemmKernel;
  using ElementA = typename Gemm::ElementA;
  using ElementB = typename Gemm::ElementB;
  using ElementD = typename GemmKernel::ElementD;
  using StrideA = typename GemmKernel::InternalStrideA;
  using StrideB = typename GemmKernel::InternalStrideB;
  using StrideD = typename GemmKernel::InternalStrideD;
  static constexpr bool kBlockwise = Kind::kScaling == Scaling::kBlockwise;

 public:
  Plan(const std::vector<GemmProblem>& groups, std::string algorithm, const PlanOptions& options,
       int tile_run, cudaStream_t stream)
      : algorithm_(std::move(algorithm)), repack_(options.repack) {
    std::vector<const ElementA*> a;
    std::vector<const ElementB*> b;
    std::vector<ElementD*> d;
    std::vector<StrideA> stride_a;
    std::vector<StrideB> stride_b;
    std::vector<StrideD> stride_d;
    std::vector<const float*> left_scales, right_scales;
    for (const GemmProblem& group : groups) {
      const int p = static_cast<int>(group.left.outer());
      const int q = static_cast<int>(group.right.outer());
      const int k = static_cast<int>(group.left.contraction());
      host_shapes_.push_back({p, q, k});
      a.push_back(static_cast<const ElementA*>(group.left.tensor.data));
      b.push_back(static_cast<const ElementB*>(group.right.tensor.data));
      d.push_back(reinterpret_cast<ElementD*>(group.output));
      stride_a.push_back(stored_rows<StrideA>(group.left.tensor.cols));
      stride_b.push_back(stored_rows<StrideB>(group.right.tensor.cols));
      stride_d.push_back(stored_rows<StrideD>(q));
      left_scales.push_back(static_cast<const float*>(group.left.tensor.scale));
      right_scales.push_back(static_cast<const float*>(group.right.tensor.scale));
    }
    group_count_ = static_cast<int64_t>(groups.size());
    shapes_ = upload(host_shapes_, stream);
    a_ = upload(a, stream);
    b_ = upload(b, stream);
    d_ = upload(d, stream);
    stride_a_ = upload(stride_a, stream);
    stride_b_ = upload(stride_b, stream);
    stride_d_ = upload(stride_d, stream);
    left_scales_ = upload(left_scales, stream);
    right_scales_ = upload(right_scales, stream);

    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    typename Gemm::Arguments arguments{};
    arguments.mode = cutlass::gemm::GemmUniversalMode::kGrouped;
    arguments.problem_shape = {
        {static_cast<int>(groups.size()), shapes_.get(), host_shapes_.data()}};
    arguments.scheduler.run = tile_run;
    arguments.mainloop.ptr_A = a_.get();
    arguments.mainloop.dA = stride_a_.get();
    arguments.mainloop.ptr_B = b_.get();
    arguments.mainloop.dB = stride_b_.get();
    typename ScaleProduct::Arguments scale_product{};
    scale_product.scalars[0] = scale_product.scalars[1] = 1.0f;
    // Kept alive until the stream has copied it (the synchronisation at the end).
    std::vector<const float*> repacked_pointers;
    if constexpr (kBlockwise) {
      std::vector<typename Kind::LayoutSFA> layout_sfa;
      std::vector<typename Kind::LayoutSFB> layout_sfb;
      for (const auto& [p, q, k] : host_shapes_) {
        const auto mnkl = cute::make_shape(p, q, k, 1);
        layout_sfa.push_back(Kind::ScaleConfig::tile_atom_to_shape_SFA(mnkl));
        layout_sfb.push_back(Kind::ScaleConfig::tile_atom_to_shape_SFB(mnkl));
      }
      block_scales_.sfa = upload(layout_sfa, stream);
      block_scales_.sfb = upload(layout_sfb, stream);
      arguments.mainloop.ptr_SFA = left_scales_.get();
      arguments.mainloop.layout_SFA = block_scales_.sfa.get();
      arguments.mainloop.ptr_SFB = right_scales_.get();
      arguments.mainloop.layout_SFB = block_scales_.sfb.get();
      if (repack_) {
        const int64_t per_group = repack_->group_scales();
        block_scales_.repacked = DeviceBuffer<float>(static_cast<size_t>(group_count_ * per_group));
        for (int64_t g = 0; g < group_count_; ++g)
          repacked_pointers.push_back(block_scales_.repacked.get() + g * per_group);
        block_scales_.repacked_pointers = upload(repacked_pointers, stream);
        arguments.mainloop.ptr_SFB = block_scales_.repacked_pointers.get();
      }
    } else if constexpr (Kind::kScaling == Scaling::kTensorwise) {
      scale_product.scalar_ptr_arrays[0] = left_scales_.get();
      scale_product.scalar_ptr_arrays[1] = right_scales_.get();
      scale_product.dScalar[0] = scale_product.dScalar[1] = {cute::_0{}, cute::_0{}, 1};
    }
    if (repack_ && !kBlockwise)
      throw std::logic_error(std::string(kName) + ": a scale repack planned without block scales");
    if constexpr (Kind::kScaling == Scaling::kRowwise) {
      // {right's row broadcast, {left's column broadcast, the accumulator, *}, *}
      arguments.epilogue.thread = {{right_scales_.get()}, {{left_scales_.get()}, {}, {}}, {}};
    } else {
      arguments.epilogue.thread = {scale_product, {}, {}};
    }
    arguments.epilogue.ptr_C = nullptr;
    arguments.epilogue.dC = nullptr;
    arguments.epilogue.ptr_D = d_.get();
    arguments.epilogue.dD = stride_d_.get();
    arguments.hw_info = cutlass::KernelHardwareInfo::make_kernel_hardware_info<GemmKernel>(device);

    const cutlass::Status implementable = Gemm::can_implement(arguments);
    if (implementable != cutlass::Status::kSuccess) {
      throw Unsupported(std::string(kName) + ": CUTLASS's can_implement refused the groups: " +
                        cutlassGetStatusString(implementable));
    }
    workspace_ = DeviceBuffer<uint8_t>(Gemm::get_workspace_size(arguments));
    // The workspace holds each SM's copy of the TMA descriptors, which the kernel writes with
    // tensormap.cp_fenceproxy and then reads; compute-sanitizer's initcheck does not count that
    // write and reported every descriptor read as uninitialized. Zeroing it once costs nothing.
    if (workspace_.bytes() > 0)
      CUDA_CHECK(cudaMemsetAsync(workspace_.get(), 0, workspace_.bytes(), stream));
    gemm_ = std::make_unique<Gemm>();
    check(gemm_->initialize(arguments, workspace_.get(), stream), "initialize");
    // The uploads above read host vectors that end with this constructor.
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(cudaStream_t stream) const override {
    if constexpr (kBlockwise) {
      if (repack_) {
        repack_weight_scales(*repack_, right_scales_.get(), block_scales_.repacked.get(),
                             group_count_, stream);
      }
    }
    check(gemm_->run(stream), "run");
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return repack_ ? 2 : 1; }

 private:
  static void check(cutlass::Status status, const char* what) {
    if (status != cutlass::Status::kSuccess) {
      throw std::runtime_error(std::string(kName) + ": " + what +
                               " failed: " + cutlassGetStatusString(status));
    }
  }

  std::string algorithm_;
  std::optional<WeightScaleRepack> repack_;
  int64_t group_count_ = 0;
  // CUTLASS's arguments point at the host copy of the shapes too.
  std::vector<typename ProblemShape::UnderlyingProblemShape> host_shapes_;
  DeviceBuffer<typename ProblemShape::UnderlyingProblemShape> shapes_;
  DeviceBuffer<const ElementA*> a_;
  DeviceBuffer<const ElementB*> b_;
  DeviceBuffer<ElementD*> d_;
  DeviceBuffer<StrideA> stride_a_;
  DeviceBuffer<StrideB> stride_b_;
  DeviceBuffer<StrideD> stride_d_;
  // Tensorwise: the epilogue's factors; rowwise: its vectors; blockwise: SFA and the repack's (or
  // the kernel's) SFB.
  DeviceBuffer<const float*> left_scales_;
  DeviceBuffer<const float*> right_scales_;
  BlockScales<Kind> block_scales_;
  DeviceBuffer<uint8_t> workspace_;
  std::unique_ptr<Gemm> gemm_;
};

template <class K>
std::unique_ptr<GroupedGemm> make_plan(const std::vector<GemmProblem>& groups,
                                       const std::string& algorithm, const PlanOptions& options,
                                       int tile_run, cudaStream_t stream) {
  return std::make_unique<Plan<K>>(groups, algorithm, options, tile_run, stream);
}

// The Configuration entry of one instantiation.
template <class Kind, class Schedule, int kTileM, int kTileN, int kTileK, int kClusterM,
          int kClusterN, int kEpilogueN = 0>
Configuration configuration(unsigned meant_for) {
  using K = Kernel<Kind, Schedule, kTileM, kTileN, kTileK, kClusterM, kClusterN, kEpilogueN>;
  return {Schedule::kName, kTileM,     kTileN, kTileK,    kClusterM,
          kClusterN,       kEpilogueN, 1,      meant_for, &make_plan<K>};
}

// ---- The configurations of each kind --------------------------------------------------------
//
// A short list (every instantiation costs every build 15-20 s of nvcc), each configuration meant
// for the groups whose average rows (P) it names; the factory puts those first. The wgmma
// accumulators bound the tiles: a consumer warpgroup holds its share of the tile in FP32
// registers, twice where the mainloop promotes (FP8 split accumulation, block scales), so
// those keep 64 x <= 192 a warpgroup (64 x 256 spills).

// Epilogue subtiles. CUTLASS's own choice for a cooperative tile is 128x32, two in flight; 128x64
// (half as many waits, twice the bytes a TMA store) is faster where the epilogue is a large part
// of a tile's time (H100, 2026-11-26, each kind's trial among both, docs/moe.md):
// - the K-grouped Wgrad of small experts, where each expert's dW is a whole output written after
//   a short contraction (256 rows an expert in Qwen3-30B-A3B): 6-8% faster in BF16, FP8Current
//   and FP8Block at 128 experts a rank, 2-6% at DeepSeek-V3's 32, 0-2% at 16;
// - FP8Current's Fprop on the wide 128x256 tile: 0-7% faster on every expert shape measured;
// - FP8Block's Fprop and Dgrad: 0-5% faster at 16 and 32 experts, 0-6% slower at 128;
// - FP8Current's Dgrad (E5M2 x E4M3, 128x192): 1-8% slower, but for one case.
// 128x128 subtiles (one a tile) were slower than CUTLASS's choice. So the Wgrad-only kinds (BF16
// NT, 1x128 x 1x128 blocks) and FP8Current's Fprop take 128x64 in their wide configuration, and
// the two kinds where it wins some shapes and loses others (1x128 x 128x128 blocks, E5M2 x E4M3)
// have it as one more configuration.
inline constexpr int kWideEpilogueN = 64;

// The epilogue subtiles of a kind's wide configuration: CUTLASS's, 128 x kWideEpilogueN, or the
// wide configuration twice, once with each (the second listed last), for the trial to choose.
enum class WideEpilogue { kCutlass, kWide, kBoth };

// PyTorch's choice for torch._grouped_mm on sm90 (aten/src/ATen/native/cuda/GroupMM.cu): ping-pong
// 64x128x128 where a group averages at most 128 rows (or Q <= 128), cooperative 128x256x64
// otherwise, both with clusters of 2x1 (the cooperative tile is the wide configuration).
template <class Kind, WideEpilogue kEpilogue = WideEpilogue::kCutlass>
std::vector<Configuration> bf16_configurations() {
  static_assert(kEpilogue != WideEpilogue::kBoth, "not instantiated for BF16");
  constexpr int kEpilogueN = kEpilogue == WideEpilogue::kWide ? kWideEpilogueN : 0;
  return {
      configuration<Kind, Cooperative, 128, 256, 64, 2, 1, kEpilogueN>(kMediumGroups |
                                                                       kLargeGroups),
      configuration<Kind, Pingpong, 64, 128, 128, 2, 1>(kSmallGroups),
  };
}

// FP8: cooperative 128x128x128 with clusters of 1x2 (the 128-row default); a wider tile for
// experts of 1024 rows and more (DeepSeek-V3's), whose clusters of 2x1 share the weight tile
// between two row tiles; ping-pong 64-row tiles for small experts, where the second
// warpgroup's mainloop hides each tile's epilogue. 128x256 needs fast accumulation (one set of
// accumulators); split accumulation takes 128x192; block scales keep 128x128 (CUTLASS 4.2 does
// not build 128x256 with 128x128 scales, and 1x128 x 1x128 spills at 128x192), so their wide
// configuration is the 2x1 cluster alone.
template <class Kind, int kLargeTileN, WideEpilogue kEpilogue = WideEpilogue::kCutlass>
std::vector<Configuration> fp8_configurations() {
  constexpr int kEpilogueN = kEpilogue == WideEpilogue::kWide ? kWideEpilogueN : 0;
  std::vector<Configuration> configurations = {
      configuration<Kind, Cooperative, 128, 128, 128, 1, 2>(kMediumGroups),
      configuration<Kind, Cooperative, 128, kLargeTileN, 128, 2, 1, kEpilogueN>(kLargeGroups),
      configuration<Kind, Pingpong, 64, 128, 128, 1, 2>(kSmallGroups),
  };
  if constexpr (kEpilogue == WideEpilogue::kBoth) {
    configurations.push_back(
        configuration<Kind, Cooperative, 128, kLargeTileN, 128, 2, 1, kWideEpilogueN>(
            kLargeGroups));
  }
  return configurations;
}

// Tile runs (kernels/cutlass/detail/tile_run_scheduler.cuh): each cluster takes kTileRun
// consecutive tiles instead of every (clusters in the grid)-th one. Against CUTLASS's order, in
// the same configuration (H100, 2026-11-26, --list_kernels trials of runs of 1, 2, 4 and 8 over
// Qwen3-30B-A3B at 128 and 16 experts a rank and DeepSeek-V3, docs/moe.md):
// - the K-grouped Wgrad at 128 experts a rank (two k-blocks a tile): runs of 4 faster by 11-17% in
//   FP8Block, 6-8% in FP8Current, 1-5% in BF16; at 16 and 32 experts within 5% either way;
// - FP8Block's Fprop of expert_down (K = 768, six k-blocks): 2-6% faster at 128 and 16 experts;
// - where each tile's operands are long (K of 2048 and more) runs lose up to 30%: the tiles in
//   flight at once span four times as many tiles, whose operands no longer share L2.
// Runs of 2 and 8 did no better than 4 beyond the trials' noise (1-3%). So the kinds of those
// GEMMs (BF16 NT, E5M2 x E4M3, both block kinds) list each wide configuration once more with runs,
// for the trial to choose; the others, where runs never won by more than the noise, do not. Where
// the groups' contraction is long, runs are not planned at all (kernels/cutlass/grouped_gemm.cu,
// tile_runs_suit).
inline constexpr int kTileRun = 4;

// `listed`, then each of its wide configurations (those meant for large groups) with tile runs.
inline std::vector<Configuration> with_tile_runs(std::vector<Configuration> listed) {
  const size_t count = listed.size();
  for (size_t i = 0; i < count; ++i) {
    if ((listed[i].meant_for & kLargeGroups) == 0)
      continue;
    Configuration runs = listed[i];
    runs.tile_run = kTileRun;
    listed.push_back(runs);
  }
  return listed;
}

}  // namespace gemmscope::cutlass_grouped
