#pragma once
// CUTLASS 4.2's sm90 dense GEMM with blockwise FP8 scaling (KernelTmaWarpSpecialized
// {Cooperative,Pingpong}FP8Blockwise), planned for one Problem
// (kernels/cutlass/detail/dense_gemm_configurations.h). Each kernels/cutlass_dense_gemm_*.cu
// file includes this and instantiates one configuration; kernels/cutlass/dense_gemm.cpp checks,
// ranks and plans them.
//
// CUTLASS roles: A = left [m, k] row-major, B = right stored [n, k] (column-major k x n),
// D = output [m, n] row-major BF16, no C. The mainloop scales each 128-deep K block's partial
// sums by A's 1x128 scales and B's 128x128 or 1x128 scales and adds them up in FP32.
//
// Scale layouts: the kernel reads SFA and SFB through CuTe layouts whose strides are runtime
// values (Sm90BlockwiseScaleConfig's LayoutSFA/LayoutSFB), so our (cuBLASLt's) layouts are
// passed as they are, padded strides included, and nothing is repacked. With kb = ceil(k/128),
// nb = ceil(n/128):
//
//   A 1x128    VEC128_32F [kb][roundup(m,4)]   shape ((1, roundup(m,4)), (128, kb)),
//                                              stride ((0, 1), (0, roundup(m,4)))
//   B 128x128  BLK128x128_32F [nb][roundup(kb,4)]  shape ((128, nb), (128, kb)),
//                                              stride ((0, roundup(kb,4)), (0, 1))
//   B 1x128    VEC128_32F [kb][roundup(n,4)]   shape ((1, roundup(n,4)), (128, kb)),
//                                              stride ((0, 1), (0, roundup(n,4)))
//
// The 1x128 extents count the padding rows, which are real slots holding kScalePadding: 1D2D
// loads A's scales with TMA, and CUTLASS's can_implement wants a TMA-loaded extent that is a
// multiple of 4 scales (16 bytes); rows past m scale only rows that are never stored.
//
// Without cutlass/util (the wheel has none), strides are spelled out here.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <cutlass/cutlass.h>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/kernel_hardware_info.h>
#include <cute/tensor.hpp>
#include <cutlass/detail/blockwise_scale_layout.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>

#include "kernels/cutlass/detail/dense_gemm_configurations.h"
#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"
#include "quant/fp8/scale_layout.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the CUTLASS dense GEMM is built for sm_90a only (see kernels/cutlass/CMakeLists.txt)"
#endif

namespace gemmscope::cutlass_dense {

constexpr int kScaleBlock = static_cast<int>(kFp8ScaleBlock);  // also the tile's K depth
constexpr int kFp8Alignment = 16;                              // elements in 16 bytes
constexpr int kOutputAlignment = 8;                            // BF16 elements in 16 bytes

// One configuration's CUTLASS types: its tile is kTileM x 128 x 128 (N 128: 1D2D's weight scales
// cover 128 columns, and CUTLASS wants whole scale blocks in a tile; K 128: one scale block a
// k-tile), its cluster kClusterM x kClusterN.
template <BlockScaling kScaling, Schedule kSchedule, TileScheduler kScheduler, int kTileM,
          int kClusterM, int kClusterN>
struct Instantiation {
  static constexpr BlockScaling scaling = kScaling;
  static constexpr Schedule schedule = kSchedule;
  static constexpr TileScheduler scheduler = kScheduler;
  static constexpr bool right_128x128 = kScaling == BlockScaling::k1d2d;
  static constexpr bool cooperative = kSchedule == Schedule::kCooperative;
  static constexpr bool stream_k = kScheduler == TileScheduler::kStreamK;

  using Tile = cute::Shape<cute::Int<kTileM>, cute::_128, cute::Int<kScaleBlock>>;
  using Cluster = cute::Shape<cute::Int<kClusterM>, cute::Int<kClusterN>, cute::_1>;
  using ScaleConfig = cutlass::detail::Sm90BlockwiseScaleConfig<
      1, right_128x128 ? kScaleBlock : 1, kScaleBlock, cute::GMMA::Major::MN,
      right_128x128 ? cute::GMMA::Major::K : cute::GMMA::Major::MN>;
  using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
  using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Tile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, void,
      cutlass::layout::RowMajor, kOutputAlignment, cutlass::bfloat16_t, cutlass::layout::RowMajor,
      kOutputAlignment,
      std::conditional_t<cooperative, cutlass::epilogue::TmaWarpSpecializedCooperative,
                         cutlass::epilogue::TmaWarpSpecialized>>::CollectiveOp;
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::float_e4m3_t,
      cute::tuple<cutlass::layout::RowMajor, LayoutSFA>, kFp8Alignment, cutlass::float_e4m3_t,
      cute::tuple<cutlass::layout::ColumnMajor, LayoutSFB>, kFp8Alignment, float, Tile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      std::conditional_t<
          cooperative, cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8Blockwise,
          cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8Blockwise>>::CollectiveOp;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<
      cute::Shape<int, int, int, int>, Mainloop, Epilogue,
      std::conditional_t<stream_k, cutlass::gemm::StreamKScheduler, void>>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

// Row-major [rows, leading] storage: `leading` between rows, 1 along them, one batch.
template <class Stride>
Stride rows_of(int64_t rows, int64_t leading) {
  static_assert(std::is_same_v<Stride, cute::Stride<int64_t, cute::_1, int64_t>>,
                "A, B and D are K-major / row-major with 64-bit strides");
  return Stride{leading, cute::_1{}, rows * leading};
}

// Our 1x128 scales of an operand [rows, k] (VEC128_32F), as CUTLASS's MN-major layout.
template <class Layout>
Layout vec128_scales(int rows, int k) {
  const int padded_rows = static_cast<int>(round_up(rows, kScaleRowAlignment));
  const int k_blocks = static_cast<int>(ceil_div(k, kFp8ScaleBlock));
  const int k_step =
      static_cast<int>(vec128_scale_index(0, 1, rows) - vec128_scale_index(0, 0, rows));
  return Layout{cute::make_shape(cute::make_shape(cute::_1{}, padded_rows),
                                 cute::make_shape(cute::Int<kScaleBlock>{}, k_blocks), 1),
                cute::make_stride(cute::make_stride(cute::_0{}, cute::_1{}),
                                  cute::make_stride(cute::_0{}, k_step),
                                  static_cast<int>(vec128_scale_count(rows, k)))};
}

// Our 128x128 scales of an operand [rows, k] (BLK128x128_32F), as CUTLASS's K-major layout.
template <class Layout>
Layout block128_scales(int rows, int k) {
  const int row_blocks = static_cast<int>(ceil_div(rows, kFp8ScaleBlock));
  const int k_blocks = static_cast<int>(ceil_div(k, kFp8ScaleBlock));
  const int row_step =
      static_cast<int>(block128_scale_index(1, 0, k) - block128_scale_index(0, 0, k));
  return Layout{cute::make_shape(cute::make_shape(cute::Int<kScaleBlock>{}, row_blocks),
                                 cute::make_shape(cute::Int<kScaleBlock>{}, k_blocks), 1),
                cute::make_stride(cute::make_stride(cute::_0{}, row_step),
                                  cute::make_stride(cute::_0{}, cute::_1{}),
                                  static_cast<int>(block128_scale_count(rows, k)))};
}

template <class Config>
typename Config::Gemm::Arguments arguments_for(const Problem& p, int max_swizzle,
                                               const cutlass::KernelHardwareInfo& hw_info) {
  using Kernel = typename Config::Kernel;
  typename Config::Gemm::Arguments arguments{};
  arguments.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  arguments.problem_shape = {p.m, p.n, p.k, 1};
  auto& mainloop = arguments.mainloop;
  mainloop.ptr_A = static_cast<const cutlass::float_e4m3_t*>(p.a);
  mainloop.dA = rows_of<typename Kernel::StrideA>(p.m, p.k);
  mainloop.ptr_B = static_cast<const cutlass::float_e4m3_t*>(p.b);
  mainloop.dB = rows_of<typename Kernel::StrideB>(p.n, p.k);
  mainloop.ptr_SFA = p.scale_a;
  mainloop.layout_SFA = vec128_scales<typename Config::LayoutSFA>(p.m, p.k);
  mainloop.ptr_SFB = p.scale_b;
  if constexpr (Config::right_128x128) {
    mainloop.layout_SFB = block128_scales<typename Config::LayoutSFB>(p.n, p.k);
  } else {
    mainloop.layout_SFB = vec128_scales<typename Config::LayoutSFB>(p.n, p.k);
  }
  auto& epilogue = arguments.epilogue;
  epilogue.thread.alpha = 1.0f;
  epilogue.thread.beta = 0.0f;
  epilogue.ptr_C = nullptr;
  epilogue.dC = rows_of<typename Kernel::StrideC>(p.m, p.n);
  epilogue.ptr_D = static_cast<cutlass::bfloat16_t*>(p.d);
  epilogue.dD = rows_of<typename Kernel::StrideD>(p.m, p.n);
  arguments.hw_info = hw_info;
  arguments.scheduler.max_swizzle_size = max_swizzle;
  return arguments;
}

inline void check_cutlass(cutlass::Status status, const char* what) {
  if (status != cutlass::Status::kSuccess) {
    throw std::runtime_error(std::string("CUTLASS dense GEMM: ") + what +
                             " failed: " + cutlassGetStatusString(status));
  }
}

template <class Config>
class CutlassDenseGemm final : public GroupedGemm {
  using Gemm = typename Config::Gemm;
  using Kernel = typename Config::Kernel;

 public:
  CutlassDenseGemm(const Problem& problem, int max_swizzle, std::string algorithm,
                   cudaStream_t stream)
      : algorithm_(std::move(algorithm)) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    arguments_ = arguments_for<Config>(
        problem, max_swizzle,
        cutlass::KernelHardwareInfo::make_kernel_hardware_info<Kernel>(device));
    check_cutlass(Gemm::can_implement(arguments_), "can_implement");
    workspace_ = DeviceBuffer<uint8_t>(Gemm::get_workspace_size(arguments_));
    gemm_ = std::make_unique<Gemm>();
    check_cutlass(gemm_->initialize(arguments_, workspace_.get(), stream), "initialize");
  }

  // Stream-K's partial tiles meet at counters in the workspace, which a run leaves at their
  // final counts: they go back to zero (one memset, when the scheduler split any tile) first.
  void run(cudaStream_t stream) const override {
    if constexpr (Config::stream_k)
      check_cutlass(Kernel::initialize_workspace(arguments_, workspace_.get(), stream),
                    "initialize_workspace");
    check_cutlass(gemm_->run(stream), "run");
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return Config::stream_k ? 2 : 1; }

 private:
  std::string algorithm_;
  typename Gemm::Arguments arguments_;
  DeviceBuffer<uint8_t> workspace_;
  std::unique_ptr<Gemm> gemm_;
};

template <class Config>
std::string refusal(const Problem& problem) {
  const cutlass::Status status = Config::Gemm::can_implement(arguments_for<Config>(problem, 1, {}));
  if (status == cutlass::Status::kSuccess)
    return "";
  return std::string("CUTLASS's can_implement refused it (") + cutlassGetStatusString(status) + ")";
}

template <class Config>
std::unique_ptr<GroupedGemm> plan(const Problem& problem, int max_swizzle,
                                  const std::string& algorithm, cudaStream_t stream) {
  return std::make_unique<CutlassDenseGemm<Config>>(problem, max_swizzle, algorithm, stream);
}

template <class Config>
Configuration describe_instantiation() {
  Configuration c{};
  c.scaling = Config::scaling;
  c.schedule = Config::schedule;
  c.scheduler = Config::scheduler;
  c.tile_m = cute::size<0>(typename Config::Tile{});
  c.tile_n = cute::size<1>(typename Config::Tile{});
  c.tile_k = cute::size<2>(typename Config::Tile{});
  c.cluster_m = cute::size<0>(typename Config::Cluster{});
  c.cluster_n = cute::size<1>(typename Config::Cluster{});
  c.refusal = &refusal<Config>;
  c.plan = &plan<Config>;
  return c;
}

}  // namespace gemmscope::cutlass_dense

// Defines `Configuration gemmscope::cutlass_dense::config_<name>()` for Instantiation<...>: a
// kernels/cutlass_dense_gemm_<name>.cu file holds one of these.
#define GEMMSCOPE_CUTLASS_DENSE_CONFIG(name, ...)                \
  namespace gemmscope::cutlass_dense {                           \
  Configuration config_##name() {                                \
    return describe_instantiation<Instantiation<__VA_ARGS__>>(); \
  }                                                              \
  }
