// make_deepgemm_dense_gemms (kernels/deepgemm/dense_gemm.h): DeepGEMM's sm90_fp8_gemm_1d2d_impl
// kernel template (deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh, tested at DeepGEMM commit 54e2261),
// instantiated in a few configurations and launched on our operands.
//
// Configurations (tile M x N, which operand two CTAs share): DeepGEMM's own heuristic picks
// 256x128 for nearly every large Fprop and Dgrad of te-tutorial and Llama 3 70B (TP 8), and
// ranks 256x112, 128x192 and 128x160 next. Timed side by side on an H100 in --provider=auto's
// trial (docs/results.md), the kept ones were
//
//   256x128, A shared   7 of the 16 Fprop and Dgrad cases of both models
//   128x192, B shared   7 (six of te-tutorial's eight): a tile N that crosses weight-scale
//                       blocks, two B scales a tile
//   256x128, B shared   1, and within 2.2% of A shared in every case
//   128x160, B shared   0, but within 0.6% of the kept CUTLASS GEMM on N = 1280 (8 tiles)
//
// and 256x112 never: 18-56% behind the best, so it is not built.
//
// Order (best first), a first guess the caller's trial then settles: waves x tile area, waves =
// ceil(tiles / SMs), as kernels/cutlass/dense_gemm.cpp orders CUTLASS's; ties keep the list order.
// What the kernel is, and the shared memory each configuration takes:
// kernels/deepgemm/detail/sm90_fp8_1d2d.cuh.

#include "kernels/deepgemm/dense_gemm.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/deepgemm/detail/sm90_fp8_1d2d.cuh"
#include "kernels/detail/fp8_block_gemm.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {
namespace {

using deepgemm::Configuration;
using deepgemm::Instantiation;

constexpr const char* kName = "DeepGEMM dense GEMM";

template <uint32_t kBlockM, uint32_t kBlockN, bool kMulticastOnA>
using Dense = Instantiation<kBlockM, kBlockN, kMulticastOnA, deep_gemm::GemmType::Normal>;

const std::vector<Configuration>& configurations() {
  static const std::vector<Configuration> all = {
      Dense<256, 128, true>::describe(),
      Dense<256, 128, false>::describe(),
      Dense<128, 192, false>::describe(),
      Dense<128, 160, false>::describe(),
  };
  return all;
}

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_dense_gemms(const GemmProblem& problem,
                                                                    cudaStream_t /*stream*/) {
  const detail::Fp8BlockGemm checked = detail::check_fp8_block_gemm(problem, kName);
  deepgemm::require_1d2d(kName, checked.scaling == detail::BlockScaling::k1d2d, checked.k);
  deepgemm::require_deepgemm_gpu(kName);
  deepgemm::Operands operands{};
  operands.a = checked.a;
  operands.a_rows = checked.m;
  operands.b = checked.b;
  operands.b_rows = checked.n;
  operands.d = checked.d;
  operands.n = checked.n;
  operands.k = checked.k;
  // Our VEC128_32F scales are DeepGEMM's MN-major, TMA-aligned ones: [k_blocks][padded m].
  operands.scale_a = checked.scale_a;
  operands.scale_a_stride = round_up(checked.m, kScaleRowAlignment);
  operands.scale_b = checked.scale_b;
  operands.scale_b_rows = ceil_div(checked.n, kFp8ScaleBlock);
  std::vector<std::unique_ptr<GroupedGemm>> gemms;
  for (const Configuration* config :
       deepgemm::by_modelled_time(configurations(), checked.m, checked.n)) {
    gemms.push_back(std::make_unique<deepgemm::Sm90Fp8Gemm>(
        kName, *config, config->kernel, operands, nullptr,
        "DeepGEMM sm90 FP8 1x128 x 128x128 block scales (" + deepgemm::describe(*config) + ")"));
  }
  return gemms;
}

}  // namespace gemmscope
