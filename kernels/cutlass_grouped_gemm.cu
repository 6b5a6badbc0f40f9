// make_cutlass_grouped_gemm (kernels/grouped_gemm.h): CUTLASS's Hopper pointer-array grouped
// GEMM for the FP8 recipes. One persistent sm_90a kernel (TMA loads, warp-specialized cooperative
// wgmma, 128x128x128 tiles, clusters of 1x2) walks every group's tiles; each group's pointers,
// strides, sizes and scales come from device arrays written once at construction, so run()
// enqueues that one kernel and nothing else.
//
// CUTLASS roles: A = left [P, K] (row-major, K-major), B = right stored [Q, K] (column-major
// K x Q, K-major), D = output [P, Q] row-major BF16; no C (beta is 0). Per-group problem (M, N, K)
// = (P, Q, K): Fprop and Dgrad vary M, Wgrad varies K.
//
// Tensorwise (FP8Current, FP8Delayed): D = bf16((s_left * s_right) · acc). The epilogue reads
// both FP32 dequantization scales of each group through two pointer arrays and multiplies them
// itself (Sm90ScalarBroadcastPtrArray's BroadcastCount = 2, the reduction it offers "for fusions
// such as fp8 scaling factors"). The scales change every step in autocast mode; reading them in
// the kernel, as cuBLASLt reads its A/B scale pointers, needs no alpha kernel before the GEMM and
// no per-group alpha buffer that a second stream could race on.
//
// Blockwise (FP8Block): the mainloop scales each 128-deep K block's partial sums by the left
// row's 1x128 scale and the right's 128x128 (Fprop, Dgrad) or 1x128 (Wgrad) scale. CUTLASS 4.2's
// sm90 pointer-array kernel ignores the per-group scale layouts it is given and derives them on
// the device from the group's (M, N, K) (ScaleConfig::tile_atom_to_shape_SF*). Our layouts are
// cuBLASLt's (quant/fp8_scale_layout.h); where they differ from the derived ones no stride can
// fix that, so those groups are refused, not silently relaid out inside the timed run.
// Per operand, with kb = ceil(K/128) and qb = ceil(Q/128):
//
//   left 1x128     ours     VEC128_32F [kb][roundup(P,4)], P fastest
//                  CUTLASS  SFA MN-major, shape ((1,P),(128,kb)), stride ((0,1),(0,P))
//                  same if  P % 4 == 0 or kb == 1
//   right 128x128  ours     BLK128x128_32F [qb][roundup(kb,4)], K blocks fastest
//                  CUTLASS  SFB K-major, shape ((128,qb),(128,kb)), stride ((0,kb),(0,1))
//                  same if  kb % 4 == 0 or qb == 1
//   right 1x128    ours     VEC128_32F [kb][roundup(Q,4)], Q fastest
//                  CUTLASS  SFB MN-major, shape ((1,Q),(128,kb)), stride ((0,1),(0,Q))
//                  same if  Q % 4 == 0 or kb == 1 (always: the output already needs Q % 8 == 0)
//
// Padding slots are never read (the kernel predicates its scale loads on M, N and K). The FP8
// recipes pad each expert's rows to 16, so P fits in Fprop and Dgrad; in Wgrad P and Q are the
// layer's widths. The 128x128 weights fit when ceil(K/128) is a multiple of 4: K = 2048, 4096,
// 7168 do, K = 768 (Qwen3-30B-A3B's expert_down Fprop) does not.
//
// Instantiations (the six compile in about a minute): tensorwise E4M3 x E4M3 and E5M2 x E4M3 (the
// HYBRID recipes' E5M2 gradient is the left operand of both Dgrad and Wgrad), each with fast
// accumulation and with CUTLASS's FP32 promotion every 4 wgmma k-blocks (cuBLASLt's FAST_ACCUM
// off); blockwise 1x128 x 128x128 and 1x128 x 1x128, E4M3. Anything else is Unsupported.

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <memory>
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

#include "kernels/device_buffer.h"
#include "kernels/grouped_gemm.h"
#include "kernels/grouped_problems.h"
#include "quant/cuda_check.h"
#include "quant/format_names.h"
#include "quant/fp8_operand.h"
#include "quant/fp8_scale_layout.h"
#include "quant/unsupported.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "cutlass_grouped_gemm.cu is built for sm_90a only (kernels/CMakeLists.txt sets its target)"
#endif

namespace gemmscope {
namespace {

constexpr const char* kName = "CUTLASS grouped GEMM";

// ---- The kernels -------------------------------------------------------------------------------

using ProblemShape = cutlass::gemm::GroupProblemShape<cute::Shape<int, int, int>>;  // (P, Q, K)
using LayoutLeft = cutlass::layout::RowMajor;
using LayoutRight = cutlass::layout::ColumnMajor;
using LayoutOutput = cutlass::layout::RowMajor;
using ElementOutput = cutlass::bfloat16_t;
using TileShape = cute::Shape<cute::_128, cute::_128, cute::_128>;
using ClusterShape = cute::Shape<cute::_1, cute::_2, cute::_1>;
constexpr int kFp8Alignment = 16;                              // elements in TMA's 16-byte unit
constexpr int kOutputAlignment = 8;                            // BF16 elements in 16 bytes
constexpr int kScaleBlock = static_cast<int>(kFp8ScaleBlock);  // 1x128 and 128x128 scale blocks

// D = bf16(s_left[g] * s_right[g] * acc): scalars 1, 1 (blockwise) or one pointer array per factor.
using ScaleProduct = cutlass::epilogue::fusion::Sm90ScalarBroadcastPtrArray<
    float, cute::Stride<cute::_0, cute::_0, int64_t>, 2, cutlass::multiplies>;
using OutputOp = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::multiplies, ElementOutput, float,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    ScaleProduct, cutlass::epilogue::fusion::Sm90AccFetch>;

// Every kernel shares its epilogue. It is spelled here, outside any template, and the mainloop
// template below sees only kEpilogueSharedBytes: nvcc 13's host-code generation prints this
// builder's type wrongly when a class template names it.
using Epilogue = cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float, void, LayoutOutput*,
    kOutputAlignment, ElementOutput, LayoutOutput*, kOutputAlignment,
    cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative, OutputOp>::CollectiveOp;
constexpr int kEpilogueSharedBytes = static_cast<int>(sizeof(Epilogue::SharedStorage));

template <class Schedule, class ElementLeft, class ElementRight, class LeftLayouts,
          class RightLayouts>
struct GroupedKernel {
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementLeft, LeftLayouts, kFp8Alignment,
      ElementRight, RightLayouts, kFp8Alignment, float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<kEpilogueSharedBytes>,
      Schedule>::CollectiveOp;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<
      cutlass::gemm::kernel::GemmUniversal<ProblemShape, Mainloop, Epilogue>>;
};

template <class ElementLeft, bool kFastAccumulation>
struct Tensorwise {
  static constexpr bool kBlockwise = false;
  using Schedule =
      std::conditional_t<kFastAccumulation,
                         cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum,
                         cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative>;
  using Gemm = typename GroupedKernel<Schedule, ElementLeft, cutlass::float_e4m3_t, LayoutLeft*,
                                      LayoutRight*>::Gemm;
};

// Left 1x128 (SFA MN-major); right 128x128 (SFB K-major) or 1x128 (SFB MN-major).
template <int kRightScaleRows, cute::GMMA::Major kRightScaleMajor>
struct Blockwise {
  static constexpr bool kBlockwise = true;
  using ScaleConfig =
      cutlass::detail::Sm90BlockwiseScaleConfig<1, kRightScaleRows, kScaleBlock,
                                                cute::GMMA::Major::MN, kRightScaleMajor>;
  using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
  using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());
  using Gemm =
      typename GroupedKernel<cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8Blockwise,
                             cutlass::float_e4m3_t, cutlass::float_e4m3_t,
                             cute::tuple<LayoutLeft*, LayoutSFA*>,
                             cute::tuple<LayoutRight*, LayoutSFB*>>::Gemm;
};

using Block1dBy2d = Blockwise<kScaleBlock, cute::GMMA::Major::K>;
using Block1dBy1d = Blockwise<1, cute::GMMA::Major::MN>;

// ---- Checks ------------------------------------------------------------------------------------

std::string group_dims(const GemmProblem& group, size_t g) {
  return "group " + std::to_string(g) + " (" + std::to_string(group.left.outer()) + "x" +
         std::to_string(group.left.contraction()) + "x" + std::to_string(group.right.outer()) + ")";
}

bool is_fp8(ElementFormat format) {
  return format == ElementFormat::kE4M3 || format == ElementFormat::kE5M2;
}

bool aligned_16(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
}

// What every group shares (check_grouped_problems makes sure of that), checked against what is
// instantiated here.
void check_kind(const GemmProblem& first) {
  const QuantizedTensor& left = first.left.tensor;
  const QuantizedTensor& right = first.right.tensor;
  if (!is_fp8(left.format) || !is_fp8(right.format)) {
    throw Unsupported(std::string(kName) + " runs FP8 (E4M3, E5M2) operands only; these are " +
                      to_string(left.format) + " x " + to_string(right.format));
  }
  if (!first.left.k_major || !first.right.k_major) {
    throw Unsupported(std::string(kName) +
                      " needs both operands K-major (TN), the only layout of Hopper's FP8 tensor "
                      "cores; the " +
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
  if (!tensorwise && !blockwise) {
    throw Unsupported(std::string(kName) +
                      " takes tensorwise scales on both operands or 1x128 left with 128x128 or "
                      "1x128 right; these are " +
                      to_string(left.scale_layout) + " x " + to_string(right.scale_layout));
  }
  if (right.format != ElementFormat::kE4M3 || (blockwise && left.format != ElementFormat::kE4M3)) {
    throw Unsupported(std::string(kName) + " is instantiated for " +
                      (blockwise ? "E4M3 x E4M3 with block scales"
                                 : "E4M3 or E5M2 (gradients) x E4M3 with tensorwise scales") +
                      "; these are " + to_string(left.format) + " x " + to_string(right.format));
  }
  if (blockwise && first.fast_accumulation) {
    throw Unsupported(std::string(kName) +
                      ": fast accumulation does not apply to block scales (the kernel promotes "
                      "to FP32 at every 128-deep scale block)");
  }
}

// What one group needs of CUTLASS's sizes and TMA's alignment.
void check_group(const GemmProblem& group, size_t g) {
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  const int64_t p = group.left.outer(), q = group.right.outer(), k = group.left.contraction();
  const std::string where = std::string(kName) + ": " + group_dims(group, g);
  if (p > kIntMax || q > kIntMax || k > kIntMax)
    throw Unsupported(where + ": CUTLASS's problem shapes are 32-bit");
  if (k % kFp8GemmContractionMultiple != 0) {
    throw Unsupported(where + ": K must be a multiple of " +
                      std::to_string(kFp8GemmContractionMultiple) + " (16-byte rows for TMA)");
  }
  if (q % kOutputAlignment != 0) {
    throw Unsupported(where + ": Q must be a multiple of " + std::to_string(kOutputAlignment) +
                      " (16-byte BF16 output rows for TMA)");
  }
  if (!aligned_16(group.left.tensor.data) || !aligned_16(group.right.tensor.data) ||
      !aligned_16(group.output)) {
    throw Unsupported(where + ": TMA needs 16-byte aligned operand and output addresses");
  }
}

// Whether CUTLASS's derived scale layout `cutlass_layout` of an operand [outer, K] (mode 0 the
// outer index, mode 1 the K index) addresses every scale where `ours(outer_block, k_block)` has
// it. Both are affine in the two block indices, so the origin and one step along each direction
// that has more than one block decide.
template <class CutlassLayout, class Ours>
bool same_scale_layout(const CutlassLayout& cutlass_layout, int64_t outer_granularity,
                       int64_t outer, int64_t k, Ours ours) {
  const auto at = [&](int64_t outer_block, int64_t k_block) {
    return static_cast<int64_t>(cutlass_layout(static_cast<int>(outer_block * outer_granularity),
                                               static_cast<int>(k_block * kScaleBlock), 0));
  };
  const bool several_outer = ceil_div(outer, outer_granularity) > 1;
  const bool several_k = ceil_div(k, kScaleBlock) > 1;
  return at(0, 0) == ours(0, 0) &&
         (!several_outer || at(1, 0) - at(0, 0) == ours(1, 0) - ours(0, 0)) &&
         (!several_k || at(0, 1) - at(0, 0) == ours(0, 1) - ours(0, 0));
}

template <class Config>
void check_block_scale_layouts(const GemmProblem& group, size_t g) {
  const int64_t p = group.left.outer(), q = group.right.outer(), k = group.left.contraction();
  const auto mnk =
      cute::make_shape(static_cast<int>(p), static_cast<int>(q), static_cast<int>(k), 1);
  const std::string where = std::string(kName) + ": " + group_dims(group, g) + ": ";
  const bool left_ok = same_scale_layout(
      Config::ScaleConfig::tile_atom_to_shape_SFA(mnk), 1, p, k,
      [&](int64_t row, int64_t k_block) { return vec128_scale_index(row, k_block, p); });
  if (!left_ok) {
    throw Unsupported(where + "the left operand's 1x128 scales step roundup(P, 4) = " +
                      std::to_string(round_up(p, kScaleRowAlignment)) +
                      " between K blocks (VEC128_32F); CUTLASS's sm90 kernel steps P = " +
                      std::to_string(p) + ": pad the expert's rows to a multiple of 4");
  }
  const int64_t k_blocks = ceil_div(k, kScaleBlock);
  if constexpr (std::is_same_v<Config, Block1dBy2d>) {
    const bool right_ok =
        same_scale_layout(Config::ScaleConfig::tile_atom_to_shape_SFB(mnk), kScaleBlock, q, k,
                          [&](int64_t row_block, int64_t k_block) {
                            return block128_scale_index(row_block, k_block, k);
                          });
    if (!right_ok) {
      throw Unsupported(where + "the right operand's 128x128 scales pad each row of " +
                        std::to_string(k_blocks) + " K blocks to " +
                        std::to_string(round_up(k_blocks, kScaleRowAlignment)) +
                        " (BLK128x128_32F); CUTLASS's sm90 kernel reads them unpadded: it needs "
                        "ceil(K/128) a multiple of 4 (K a multiple of 512) or Q <= 128");
    }
  } else {
    const bool right_ok = same_scale_layout(
        Config::ScaleConfig::tile_atom_to_shape_SFB(mnk), 1, q, k,
        [&](int64_t row, int64_t k_block) { return vec128_scale_index(row, k_block, q); });
    if (!right_ok) {
      throw Unsupported(
          where + "the right operand's 1x128 scales step roundup(Q, 4) = " +
          std::to_string(round_up(q, kScaleRowAlignment)) +
          " between K blocks (VEC128_32F); CUTLASS's sm90 kernel steps Q = " + std::to_string(q));
    }
  }
}

void require_sm90() {
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    throw Unsupported(std::string(kName) +
                      " is built for sm_90a (Hopper's wgmma and TMA), which runs on compute "
                      "capability 9.0 only; this GPU is " +
                      std::to_string(major) + "." + std::to_string(minor));
  }
}

// ---- The plan ----------------------------------------------------------------------------------

// Row-major [rows, leading] storage: stride `leading` between rows, 1 along them, no batch.
template <class Stride>
Stride rows_of(int64_t leading) {
  static_assert(std::is_same_v<Stride, cute::Stride<int64_t, cute::_1, cute::_0>>,
                "A, B and D are K-major / row-major with 64-bit leading dimensions");
  return Stride{leading, cute::_1{}, cute::_0{}};
}

// The per-group scale layouts a blockwise kernel's arguments carry; tensorwise kernels have none.
template <class Config, bool = Config::kBlockwise>
struct BlockScaleLayouts {};
template <class Config>
struct BlockScaleLayouts<Config, true> {
  DeviceBuffer<typename Config::LayoutSFA> sfa;
  DeviceBuffer<typename Config::LayoutSFB> sfb;
};

template <class Config>
class CutlassGroupedGemm final : public GroupedGemm {
  using Gemm = typename Config::Gemm;
  using Kernel = typename Gemm::GemmKernel;
  using ElementA = typename Gemm::ElementA;
  using ElementB = typename Gemm::ElementB;
  using ElementD = typename Kernel::ElementD;
  using StrideA = typename Kernel::InternalStrideA;
  using StrideB = typename Kernel::InternalStrideB;
  using StrideD = typename Kernel::InternalStrideD;

 public:
  CutlassGroupedGemm(const std::vector<GemmProblem>& groups, std::string algorithm,
                     cudaStream_t stream)
      : algorithm_(std::move(algorithm)) {
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
      stride_a.push_back(rows_of<StrideA>(k));
      stride_b.push_back(rows_of<StrideB>(k));
      stride_d.push_back(rows_of<StrideD>(q));
      left_scales.push_back(static_cast<const float*>(group.left.tensor.scale));
      right_scales.push_back(static_cast<const float*>(group.right.tensor.scale));
    }
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
    arguments.problem_shape = {static_cast<int>(groups.size()), shapes_.get(), host_shapes_.data()};
    arguments.mainloop.ptr_A = a_.get();
    arguments.mainloop.dA = stride_a_.get();
    arguments.mainloop.ptr_B = b_.get();
    arguments.mainloop.dB = stride_b_.get();
    typename ScaleProduct::Arguments scale_product{};
    scale_product.scalars[0] = scale_product.scalars[1] = 1.0f;
    if constexpr (Config::kBlockwise) {
      std::vector<typename Config::LayoutSFA> layout_sfa;
      std::vector<typename Config::LayoutSFB> layout_sfb;
      for (const auto& [p, q, k] : host_shapes_) {
        layout_sfa.push_back(
            Config::ScaleConfig::tile_atom_to_shape_SFA(cute::make_shape(p, q, k, 1)));
        layout_sfb.push_back(
            Config::ScaleConfig::tile_atom_to_shape_SFB(cute::make_shape(p, q, k, 1)));
      }
      block_scale_layouts_.sfa = upload(layout_sfa, stream);
      block_scale_layouts_.sfb = upload(layout_sfb, stream);
      arguments.mainloop.ptr_SFA = left_scales_.get();
      arguments.mainloop.layout_SFA = block_scale_layouts_.sfa.get();
      arguments.mainloop.ptr_SFB = right_scales_.get();
      arguments.mainloop.layout_SFB = block_scale_layouts_.sfb.get();
    } else {
      scale_product.scalar_ptr_arrays[0] = left_scales_.get();
      scale_product.scalar_ptr_arrays[1] = right_scales_.get();
      scale_product.dScalar[0] = scale_product.dScalar[1] = {cute::_0{}, cute::_0{}, 1};
    }
    arguments.epilogue.thread = {scale_product, {}, {}};
    arguments.epilogue.ptr_C = nullptr;
    arguments.epilogue.dC = nullptr;
    arguments.epilogue.ptr_D = d_.get();
    arguments.epilogue.dD = stride_d_.get();
    arguments.hw_info = cutlass::KernelHardwareInfo::make_kernel_hardware_info<Kernel>(device);

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

  void run(cudaStream_t stream) const override { check(gemm_->run(stream), "run"); }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return 1; }

 private:
  static void check(cutlass::Status status, const char* what) {
    if (status != cutlass::Status::kSuccess) {
      throw std::runtime_error(std::string(kName) + ": " + what +
                               " failed: " + cutlassGetStatusString(status));
    }
  }

  std::string algorithm_;
  // CUTLASS's arguments point at the host copy of the shapes too.
  std::vector<typename ProblemShape::UnderlyingProblemShape> host_shapes_;
  DeviceBuffer<typename ProblemShape::UnderlyingProblemShape> shapes_;
  DeviceBuffer<const ElementA*> a_;
  DeviceBuffer<const ElementB*> b_;
  DeviceBuffer<ElementD*> d_;
  DeviceBuffer<StrideA> stride_a_;
  DeviceBuffer<StrideB> stride_b_;
  DeviceBuffer<StrideD> stride_d_;
  DeviceBuffer<const float*> left_scales_;  // tensorwise: epilogue factors; blockwise: SFA
  DeviceBuffer<const float*> right_scales_;
  BlockScaleLayouts<Config> block_scale_layouts_;
  DeviceBuffer<uint8_t> workspace_;
  std::unique_ptr<Gemm> gemm_;
};

template <class Config>
std::unique_ptr<GroupedGemm> plan(const std::vector<GemmProblem>& groups, const std::string& what,
                                  cudaStream_t stream) {
  if constexpr (Config::kBlockwise) {
    for (size_t g = 0; g < groups.size(); ++g)
      check_block_scale_layouts<Config>(groups[g], g);
  }
  require_sm90();
  return std::make_unique<CutlassGroupedGemm<Config>>(
      groups,
      "CUTLASS sm90 grouped FP8 (ptr-array, cooperative 128x128x128, cluster 1x2, " + what + ")",
      stream);
}

std::unique_ptr<GroupedGemm> make_cutlass_grouped_gemm(const std::vector<GemmProblem>& groups,
                                                       cudaStream_t stream) {
  check_grouped_problems(groups, kName);
  const GemmProblem& first = groups.front();
  check_kind(first);
  for (size_t g = 0; g < groups.size(); ++g)
    check_group(groups[g], g);

  const ScaleLayout right_scales = first.right.tensor.scale_layout;
  if (right_scales == ScaleLayout::kBlock128x128)
    return plan<Block1dBy2d>(groups, "1x128 x 128x128 block scales", stream);
  if (right_scales == ScaleLayout::kVec128)
    return plan<Block1dBy1d>(groups, "1x128 x 1x128 block scales", stream);
  const bool e5m2 = first.left.tensor.format == ElementFormat::kE5M2;
  const std::string formats = e5m2 ? "E5M2 x E4M3" : "E4M3 x E4M3";
  if (first.fast_accumulation) {
    const std::string what = "tensorwise " + formats + ", fast accum";
    return e5m2 ? plan<Tensorwise<cutlass::float_e5m2_t, true>>(groups, what, stream)
                : plan<Tensorwise<cutlass::float_e4m3_t, true>>(groups, what, stream);
  }
  const std::string what = "tensorwise " + formats + ", split accum";
  return e5m2 ? plan<Tensorwise<cutlass::float_e5m2_t, false>>(groups, what, stream)
              : plan<Tensorwise<cutlass::float_e4m3_t, false>>(groups, what, stream);
}

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_cutlass_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream) {
  std::vector<std::unique_ptr<GroupedGemm>> configurations;
  configurations.push_back(make_cutlass_grouped_gemm(groups, stream));
  return configurations;
}

}  // namespace gemmscope
