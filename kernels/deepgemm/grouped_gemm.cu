// make_deepgemm_grouped_gemms (kernels/deepgemm/grouped_gemm.h): DeepGEMM's sm90_fp8_gemm_1d2d_impl
// with GemmType::MGroupedContiguous (kernels/deepgemm/detail/sm90_fp8_1d2d.cuh), as DeepGEMM's
// own m_grouped_fp8_gemm_nt_contiguous launches it: 128-row tiles (its heuristic takes no other
// for this layout), a table of each row's expert, one TMA descriptor over every expert's rows and
// one over the [G * Q, K] weights, whose rows the kernel offsets by the tile's expert. BF16
// groups go to the m-grouped BF16 kernel (kernels/deepgemm/grouped_bf16_gemm.cpp).
//
// Configurations (tile N, which operand two CTAs share), a short list from DeepGEMM's candidates
// for this layout (tile N 16 to 192 where the 1D2D kernel unrolls, at least 3 stages) on the
// expert shapes of Qwen3-30B-A3B and DeepSeek-V3 (N = 1536, 2048, 4096, 7168 in Fprop; 2048 and
// 7168 in Dgrad): 128 and 192 make whole waves of tiles on some, 160 on others; sharing A keeps
// multicast on across expert boundaries, sharing B halves the weight traffic where N is short.
// 128x192 B shared took the place of 128x160 A shared (kept once in 84 trials): compiled for
// the case, it ran every Dgrad case of Qwen3 EP 8 and DeepSeek-V3 1-3% faster than the list's
// best, where 128x144, 128x112, 128x96 and 128x128 A shared ran slower (H200, one trial).
// --grouped=auto's trial keeps the fastest; docs/moe.md counts which ones H200 trials kept.
//
// Each configuration is also compiled for the case's N and K at run time
// (kernels/deepgemm/detail/jit_kernel.h), as DeepGEMM's own launch compiles every kernel: 3-10%
// faster on the short-K expert cases. Those come first, the build's instantiations after, and the
// trial times all eight.

#include "kernels/deepgemm/grouped_gemm.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/deepgemm/detail/jit_kernel.h"
#include "kernels/deepgemm/detail/m_grouped.h"
#include "kernels/deepgemm/detail/sm90_fp8_1d2d.cuh"
#include "kernels/deepgemm/grouped_bf16_gemm.h"
#include "kernels/detail/fp8_block_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/grouped_problems.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"
#include "quant/fp8/scale_layout.h"

namespace gemmscope {

const bool kDeepGemmGroupedBuilt = true;

bool deepgemm_grouped_jit_enabled() {
  return deepgemm::jit_enabled();
}

namespace {

using deepgemm::bytes;
using deepgemm::Configuration;

constexpr const char* kName = "DeepGEMM m-grouped GEMM";
constexpr uint32_t kBlockM = static_cast<uint32_t>(kDeepGemmGroupRowAlignment);

template <uint32_t kBlockN, bool kMulticastOnA>
using MGrouped = deepgemm::Instantiation<kBlockM, kBlockN, kMulticastOnA,
                                         deep_gemm::GemmType::MGroupedContiguous>;

const std::vector<Configuration>& configurations() {
  static const std::vector<Configuration> all = {
      MGrouped<128, false>::describe(),
      MGrouped<192, true>::describe(),
      MGrouped<160, false>::describe(),
      MGrouped<192, false>::describe(),
  };
  return all;
}

// The groups as one m-grouped GEMM: where each whole operand starts, and each row's expert.
struct MGroupedProblem {
  int64_t m = 0, n = 0, k = 0, groups = 0;
  const void* a = nullptr;         // [m, k] E4M3
  const void* b = nullptr;         // [groups * n, k] E4M3
  void* d = nullptr;               // [m, n] BF16
  const float* scale_a = nullptr;  // stacked 1x128: [ceil(k/128)][m]
  const float* scale_b = nullptr;  // group 0's 128x128 scales; the others follow
  std::vector<int> row_expert;     // [m]
};

// Refuses, with the reason, groups that are not one contiguous m-grouped 1D2D GEMM.
MGroupedProblem check_m_grouped(const std::vector<GemmProblem>& groups) {
  check_grouped_problems(groups, kName);
  MGroupedProblem p;
  p.groups = static_cast<int64_t>(groups.size());
  p.n = groups.front().right.outer();
  p.k = groups.front().left.contraction();
  const int64_t k_blocks = ceil_div(p.k, kFp8ScaleBlock);
  const int64_t n_blocks = ceil_div(p.n, kFp8ScaleBlock);
  const int64_t padded_k_blocks = round_up(k_blocks, kScaleRowAlignment);
  for (size_t g = 0; g < groups.size(); ++g) {
    const GemmProblem& group = groups[g];
    const detail::Fp8BlockGemm gemm = detail::check_fp8_block_gemm(group, kName);
    deepgemm::require_1d2d(kName, gemm.scaling == detail::BlockScaling::k1d2d, gemm.k);
    if (gemm.k != p.k) {
      throw Unsupported(std::string(kName) + ": " + deepgemm::group_text(group, g) +
                        ": the experts' K differ (a K-grouped GEMM), which it does not run");
    }
    deepgemm::require_whole_tiles(kName, group, g, gemm.m);
    const QuantizedTensor& left = group.left.tensor;
    if (left.stacked_scale == nullptr) {
      throw Unsupported(std::string(kName) +
                        ": the left operand's 1x128 scales are not stacked (one [K/128][rows] "
                        "tensor for every expert, QuantizedTensor::stacked_scale), which its one "
                        "TMA descriptor reads");
    }
    if (g == 0) {
      p.a = gemm.a;
      p.b = gemm.b;
      p.d = gemm.d;
      p.scale_a = left.stacked_scale;
      p.scale_b = gemm.scale_b;
    }
    // Contiguous: this group's pieces sit where the groups before it end.
    const int64_t rows = p.m;
    const int64_t weights = static_cast<int64_t>(g) * p.n;
    const char* misplaced =
        bytes(gemm.a) != bytes(p.a) + rows * p.k       ? "rows"
        : bytes(gemm.d) != bytes(p.d) + rows * p.n * 2 ? "output rows"
        : bytes(gemm.b) != bytes(p.b) + weights * p.k  ? "weight rows"
        : left.stacked_scale != p.scale_a + rows       ? "stacked 1x128 scales"
        : gemm.scale_b != p.scale_b + static_cast<int64_t>(g) * n_blocks * padded_k_blocks
            ? "128x128 weight scales"
            : nullptr;
    if (misplaced != nullptr) {
      throw Unsupported(std::string(kName) + ": " + deepgemm::group_text(group, g) + ": its " +
                        misplaced +
                        " do not follow the previous expert's: the experts' rows, outputs, "
                        "weights and scales must each lie one after another, as one m-grouped "
                        "operand");
    }
    p.m += gemm.m;
    p.row_expert.insert(p.row_expert.end(), static_cast<size_t>(gemm.m), static_cast<int>(g));
  }
  for (const GemmProblem& group : groups) {
    if (group.left.tensor.stacked_scale_stride != p.m) {
      throw Unsupported(std::string(kName) + ": the stacked 1x128 scales step " +
                        std::to_string(group.left.tensor.stacked_scale_stride) +
                        " between K blocks, not every expert's rows (" + std::to_string(p.m) + ")");
    }
  }
  if (p.m > INT32_MAX || p.groups * p.n > INT32_MAX) {
    throw Unsupported(std::string(kName) + ": " + std::to_string(p.m) + " rows, " +
                      std::to_string(p.groups) + " experts' weights of " + std::to_string(p.n) +
                      " rows: its problem shapes and TMA coordinates are 32-bit");
  }
  if (reinterpret_cast<uintptr_t>(p.scale_a) % 16 != 0) {
    throw Unsupported(std::string(kName) +
                      ": the stacked 1x128 scales are not 16-byte aligned, as TMA needs");
  }
  return p;
}

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_grouped_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t stream) {
  if (!groups.empty() && groups.front().left.tensor.format == ElementFormat::kBF16)
    return make_deepgemm_grouped_bf16_gemms(groups, stream);
  const MGroupedProblem p = check_m_grouped(groups);
  deepgemm::require_deepgemm_gpu(kName);
  const auto table = deepgemm::row_expert_table(p.row_expert);
  deepgemm::Operands operands{};
  operands.a = p.a;
  operands.a_rows = p.m;
  operands.b = p.b;
  operands.b_rows = p.groups * p.n;  // every expert's weight, one after another
  operands.d = p.d;
  operands.n = p.n;
  operands.k = p.k;
  operands.scale_a = p.scale_a;  // stacked: DeepGEMM's MN-major [k_blocks][m]
  operands.scale_a_stride = p.m;
  operands.scale_b = p.scale_b;  // every expert's 128x128 scales, one after another
  operands.scale_b_rows = p.groups * ceil_div(p.n, kFp8ScaleBlock);
  const std::vector<const Configuration*> ordered =
      deepgemm::by_modelled_time(configurations(), p.m, p.n);
  const std::string kind = "DeepGEMM sm90 m-grouped FP8 1x128 x 128x128 block scales, " +
                           std::to_string(p.groups) + " experts (";
  // Each configuration compiled for this N and K too (kernels/deepgemm/detail/jit_kernel.h), as
  // DeepGEMM's own launch compiles it: the trial keeps the faster. Where that cannot be, the
  // build's instantiations run alone and their labels say why.
  std::vector<const void*> compiled;
  std::string not_compiled;
  try {
    std::vector<std::string> instantiations;
    for (const Configuration* config : ordered)
      instantiations.push_back(deepgemm::jit_instantiation(*config, p.n, p.k));
    for (const std::string& cubin :
         deepgemm::compile_cubins(deepgemm::kKernelHeader, instantiations))
      compiled.push_back(deepgemm::load_kernel(cubin));
  } catch (const Unsupported& e) {
    not_compiled = std::string("; not compiled for N = ") + std::to_string(p.n) +
                   ", K = " + std::to_string(p.k) + ": " + e.what();
  }
  std::vector<std::unique_ptr<GroupedGemm>> gemms;
  for (size_t i = 0; i < compiled.size(); ++i) {
    gemms.push_back(std::make_unique<deepgemm::Sm90Fp8Gemm>(
        kName, *ordered[i], compiled[i], operands, table,
        kind + deepgemm::describe(*ordered[i]) + ", " + kDeepGemmCompiledLabel + ")"));
  }
  for (const Configuration* config : ordered) {
    gemms.push_back(std::make_unique<deepgemm::Sm90Fp8Gemm>(
        kName, *config, config->kernel, operands, table,
        kind + deepgemm::describe(*config) + not_compiled + ")"));
  }
  return gemms;
}

}  // namespace gemmscope
