// make_deepgemm_grouped_bf16_gemms (kernels/deepgemm/grouped_bf16_gemm.h): DeepGEMM's
// sm90_bf16_gemm_impl with GemmType::MGroupedContiguous, as DeepGEMM's m_grouped_bf16_gemm_*
// launches it: 128-row tiles, 64-deep k-tiles (128 bytes, the 128B swizzle its K-major tiles
// take), two math warp groups, a table of each row's expert, one TMA descriptor over every
// expert's rows and one over every expert's weights, whose rows (K-major) or k-rows (not) the
// kernel offsets by the tile's expert.
//
// Configurations (tile N, which operand two CTAs share), chosen from eight (tile N 128 to 256,
// either operand shared) compiled for, and timed on, the 12 Fprop and Dgrad expert cases of
// Qwen3-30B-A3B (EP 1 and 8) and DeepSeek-V3 in two processes each (H200): 128 B shared was the
// fastest in 10 of 24 trials, 256 B in 7, 256 A in 4 and 192 B in 3 (192 A's one win 0.3% ahead
// of 192 B); 128 A, 160 B and 224 B never, by 1-50%. Each takes as many stages as fit in
// shared memory, at most 8.

#include "kernels/deepgemm/grouped_bf16_gemm.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/deepgemm/detail/jit_kernel.h"
#include "kernels/deepgemm/detail/m_grouped.h"
#include "kernels/deepgemm/detail/sm90_launch.h"
#include "kernels/deepgemm/grouped_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/grouped_problems.h"
#include "quant/base/unsupported.h"

namespace gemmscope {
namespace {

using deepgemm::bytes;

constexpr const char* kName = "DeepGEMM m-grouped BF16 GEMM";
constexpr const char* kKernelHeader = "deep_gemm/impls/sm90_bf16_gemm.cuh";
constexpr uint32_t kBlockM = static_cast<uint32_t>(kDeepGemmGroupRowAlignment);
constexpr uint32_t kBlockK = 64;        // 128 bytes of BF16 a k-tile row
constexpr uint32_t kMathThreads = 256;  // two warp groups, 64 rows each
constexpr uint32_t kMaxStages = 8;
constexpr uint32_t kElementBytes = 2;

struct Configuration {
  uint32_t block_n;
  bool multicast_on_a;
};

// The kernel's shared memory: the output tile, the stages (A's and B's k-tiles), the barriers.
constexpr uint32_t shared_bytes(uint32_t block_n, uint32_t stages) {
  return deepgemm::align_up(kBlockM * block_n * kElementBytes, 1024) +
         stages * (kBlockM + block_n) * kBlockK * kElementBytes + 2 * stages * 8;
}

constexpr uint32_t stages_for(uint32_t block_n) {
  uint32_t stages = kMaxStages;
  while (stages > 1 && shared_bytes(block_n, stages) > deepgemm::kSharedMemoryLimit)
    --stages;
  return stages;
}

const std::vector<Configuration>& configurations() {
  static const std::vector<Configuration> all = {
      {128, false},
      {256, false},
      {192, false},
      {256, true},
  };
  return all;
}

// The groups as one m-grouped GEMM: where each whole operand starts, and each row's expert.
struct MGroupedProblem {
  int64_t m = 0, n = 0, k = 0, groups = 0;
  bool weights_k_major = true;  // [G, N, K] (Fprop) or [G, K, N] (Dgrad)
  const void* a = nullptr;      // [m, k]
  const void* b = nullptr;      // every expert's weight, one after another
  void* d = nullptr;            // [m, n]
  std::vector<int> row_expert;  // [m]
};

// Refuses, with the reason, groups that are not one contiguous m-grouped BF16 GEMM.
MGroupedProblem check_m_grouped(const std::vector<GemmProblem>& groups) {
  check_grouped_problems(groups, kName);
  const GemmProblem& first = groups.front();
  if (first.left.tensor.format != ElementFormat::kBF16 ||
      first.right.tensor.format != ElementFormat::kBF16) {
    throw Unsupported(std::string(kName) + ": runs BF16 operands only");
  }
  // The kernel takes no alpha and reads no scales (an emulated operand's BF16 stand-in carries a
  // per-tensor factor, for one).
  for (const QuantizedTensor* t : {&first.left.tensor, &first.right.tensor}) {
    if (t->scale != nullptr || t->tensor_scale != nullptr ||
        t->scale_layout != ScaleLayout::kNone) {
      throw Unsupported(std::string(kName) +
                        ": takes unscaled BF16 operands only; these carry scales or a per-tensor "
                        "factor, which its kernel has no input for");
    }
  }
  if (!first.left.k_major) {
    throw Unsupported(std::string(kName) +
                      ": the left operand must be K-major (Fprop's X, Dgrad's dY): Wgrad, whose "
                      "experts' K differ (a K-grouped GEMM), is not run");
  }
  MGroupedProblem p;
  p.groups = static_cast<int64_t>(groups.size());
  p.n = first.right.outer();
  p.k = first.left.contraction();
  p.weights_k_major = first.right.k_major;
  for (size_t g = 0; g < groups.size(); ++g) {
    const GemmProblem& group = groups[g];
    if (group.left.contraction() != p.k) {
      throw Unsupported(std::string(kName) + ": " + deepgemm::group_text(group, g) +
                        ": the experts' K differ (a K-grouped GEMM), which it does not run");
    }
    const int64_t rows = group.left.outer();
    deepgemm::require_whole_tiles(kName, group, g, rows);
    if (g == 0) {
      p.a = group.left.tensor.data;
      p.b = group.right.tensor.data;
      p.d = group.output;
    }
    // Contiguous: this group's pieces sit where the groups before it end.
    const int64_t weights = static_cast<int64_t>(g) * p.n * p.k;
    const char* misplaced =
        bytes(group.left.tensor.data) != bytes(p.a) + p.m * p.k * kElementBytes  ? "rows"
        : bytes(group.output) != bytes(p.d) + p.m * p.n * kElementBytes          ? "output rows"
        : bytes(group.right.tensor.data) != bytes(p.b) + weights * kElementBytes ? "weights"
                                                                                 : nullptr;
    if (misplaced != nullptr) {
      throw Unsupported(std::string(kName) + ": " + deepgemm::group_text(group, g) + ": its " +
                        misplaced +
                        " do not follow the previous expert's: the experts' rows, outputs and "
                        "weights must each lie one after another, as one m-grouped operand");
    }
    p.m += rows;
    p.row_expert.insert(p.row_expert.end(), static_cast<size_t>(rows), static_cast<int>(g));
  }
  const auto aligned_16 = [](const void* pointer) {
    return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
  };
  if (!aligned_16(p.a) || !aligned_16(p.b) || !aligned_16(p.d)) {
    throw Unsupported(std::string(kName) +
                      ": TMA needs 16-byte aligned operand and output addresses");
  }
  if (p.n % 8 != 0 || p.k % 8 != 0) {
    throw Unsupported(std::string(kName) + ": N = " + std::to_string(p.n) +
                      ", K = " + std::to_string(p.k) +
                      ": both must be multiples of 8 (TMA reads and writes rows of 16-byte "
                      "multiples)");
  }
  if (!p.weights_k_major && p.k % kBlockK != 0) {
    throw Unsupported(std::string(kName) + ": K = " + std::to_string(p.k) +
                      " with the weights stored [K, N] (Dgrad): K must be a multiple of " +
                      std::to_string(kBlockK) +
                      ", or a k-tile would read the next expert's weight rows");
  }
  if (p.m > INT32_MAX || p.groups * std::max(p.n, p.k) > INT32_MAX) {
    throw Unsupported(std::string(kName) + ": " + std::to_string(p.m) + " rows, " +
                      std::to_string(p.groups) +
                      " experts' weights: its problem shapes and TMA coordinates are 32-bit");
  }
  return p;
}

// The weights' TMA swizzle: K-major k-tiles are 128 bytes deep; [K, N] tiles are block_n wide.
uint32_t weight_swizzle(const Configuration& c, bool weights_k_major) {
  return weights_k_major ? kBlockK * kElementBytes
                         : deepgemm::swizzle_for(c.block_n * kElementBytes);
}

// The C++ name of `c`'s kernel with N and K compiled in, as compile_cubins takes it. Its group
// count is 1 whatever the experts: an m-grouped contiguous kernel reads each tile's expert from
// the row table, never the count, so one cubin serves every expert count of a shape.
std::string instantiation(const Configuration& c, const MGroupedProblem& p) {
  const auto text = [](auto value) { return std::to_string(value); };
  return std::string("deep_gemm::sm90_bf16_gemm_impl<cute::UMMA::Major::K, cute::UMMA::Major::") +
         (p.weights_k_major ? "K" : "MN") + ", 0, " + text(p.n) + ", " + text(p.k) + ", 1, " +
         text(kBlockM) + ", " + text(c.block_n) + ", " + text(kBlockK) + ", " +
         text(kBlockK * kElementBytes) + ", " + text(weight_swizzle(c, p.weights_k_major)) + ", " +
         text(deepgemm::swizzle_for(c.block_n * kElementBytes)) + ", " +
         text(stages_for(c.block_n)) + ", " + text(deepgemm::kLoaderThreads) + ", " +
         text(kMathThreads) + ", " + text(deepgemm::kMulticast) + ", " +
         (c.multicast_on_a ? "true" : "false") + ", " + text(deepgemm::kSmCount) +
         ", deep_gemm::GemmType::MGroupedContiguous, false, cutlass::bfloat16_t>";
}

// "128x256x64, A shared by 2 CTAs, 3 stages, N and K compiled in at run time"
std::string describe(const Configuration& c) {
  return std::to_string(kBlockM) + "x" + std::to_string(c.block_n) + "x" + std::to_string(kBlockK) +
         ", " + (c.multicast_on_a ? "A" : "B") + " shared by " +
         std::to_string(deepgemm::kMulticast) + " CTAs, " + std::to_string(stages_for(c.block_n)) +
         " stages, " + kDeepGemmCompiledLabel;
}

class Sm90Bf16Gemm final : public GroupedGemm {
 public:
  Sm90Bf16Gemm(const Configuration& c, const void* kernel, const MGroupedProblem& p,
               std::shared_ptr<DeviceBuffer<int>> row_expert, std::string algorithm)
      : launch_(kernel, deepgemm::kLoaderThreads + kMathThreads,
                shared_bytes(c.block_n, stages_for(c.block_n)),
                shared_bytes(c.block_n, stages_for(c.block_n))),
        algorithm_(std::move(algorithm)),
        row_expert_(std::move(row_expert)),
        m_(static_cast<uint32_t>(p.m)),
        n_(static_cast<uint32_t>(p.n)),
        k_(static_cast<uint32_t>(p.k)) {
    const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const uint64_t m = p.m, n = p.n, k = p.k, experts = p.groups;
    const uint32_t swizzle_b = weight_swizzle(c, p.weights_k_major);
    const uint32_t swizzle_d = deepgemm::swizzle_for(c.block_n * kElementBytes);
    a_ = deepgemm::tensor_map(kName, bf16, p.a, k, m, k * kElementBytes, kBlockK, kBlockM,
                              kBlockK * kElementBytes);
    b_ = p.weights_k_major
             ? deepgemm::tensor_map(kName, bf16, p.b, k, experts * n, k * kElementBytes, kBlockK,
                                    c.block_n, swizzle_b)
             : deepgemm::tensor_map(kName, bf16, p.b, n, experts * k, n * kElementBytes,
                                    swizzle_b / kElementBytes, kBlockK, swizzle_b);
    d_ = deepgemm::tensor_map(kName, bf16, p.d, n, m, n * kElementBytes, swizzle_d / kElementBytes,
                              kBlockM, swizzle_d);
  }

  void run(cudaStream_t stream) const override {
    // In the order of sm90_bf16_gemm_impl's parameters, each pointing at its value.
    int* grouped_layout = row_expert_->get();
    uint32_t m = m_, n = n_, k = k_;
    CUtensorMap a = a_, b = b_, d = d_;
    void* values[] = {&grouped_layout, &m, &n, &k, &a, &b, &d};
    launch_(values, stream);
  }
  std::string algorithm() const override { return algorithm_; }
  size_t launches() const override { return 1; }

 private:
  deepgemm::ClusterLaunch launch_;
  std::string algorithm_;
  std::shared_ptr<DeviceBuffer<int>> row_expert_;
  uint32_t m_, n_, k_;
  CUtensorMap a_{}, b_{}, d_{};
};

}  // namespace

std::vector<std::unique_ptr<GroupedGemm>> make_deepgemm_grouped_bf16_gemms(
    const std::vector<GemmProblem>& groups, cudaStream_t /*stream*/) {
  const MGroupedProblem p = check_m_grouped(groups);
  deepgemm::require_deepgemm_gpu(kName);
  const std::vector<const Configuration*> ordered =
      deepgemm::by_modelled_time(configurations(), p.m, p.n, [](const Configuration& c) {
        return std::pair<uint32_t, uint32_t>{kBlockM, c.block_n};
      });
  std::vector<std::string> instantiations;
  for (const Configuration* c : ordered)
    instantiations.push_back(instantiation(*c, p));
  std::vector<const void*> kernels;
  try {
    for (const std::string& cubin : deepgemm::compile_cubins(kKernelHeader, instantiations))
      kernels.push_back(deepgemm::load_kernel(cubin));
  } catch (const Unsupported& e) {
    throw Unsupported(std::string(kName) +
                      ": runs only compiled for each case's N and K at run time (no instantiation "
                      "of it is built), which cannot be had here: " +
                      e.what());
  }
  const auto table = deepgemm::row_expert_table(p.row_expert);
  const std::string kind = "DeepGEMM sm90 m-grouped BF16, " + std::to_string(p.groups) +
                           " experts (" + (p.weights_k_major ? "TN" : "NN") + ", ";
  std::vector<std::unique_ptr<GroupedGemm>> gemms;
  for (size_t i = 0; i < ordered.size(); ++i) {
    gemms.push_back(std::make_unique<Sm90Bf16Gemm>(*ordered[i], kernels[i], p, table,
                                                   kind + describe(*ordered[i]) + ")"));
  }
  return gemms;
}

}  // namespace gemmscope
