// The grouped GEMM a framework without a grouped kernel runs (Megatron-Core's SequentialMLP):
// one cuBLASLt GEMM per expert, launched one after the other on one stream. It is the baseline
// the grouped kernels are compared with.

#include "kernels/cublaslt/loop_grouped_gemm.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cublaslt/emulated_gemm.h"
#include "kernels/graph_replay.h"
#include "kernels/grouped_problems.h"
#include "quant/base/unsupported.h"

namespace gemmscope {
namespace {

std::string dims(const GemmProblem& problem) {
  return std::to_string(problem.left.outer()) + "x" + std::to_string(problem.left.contraction()) +
         "x" + std::to_string(problem.right.outer());
}

// "algo 66 ... for 30, algo 71 ... for 2": each distinct algorithm once, the most used first
// (ties in group order), so that a label stays short however many experts there are.
std::string count_algorithms(const std::vector<std::string>& algorithms) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& algorithm : algorithms) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& entry) { return entry.first == algorithm; });
    if (it == counts.end()) {
      counts.emplace_back(algorithm, 1);
    } else {
      ++it->second;
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [algorithm, count] : counts) {
    if (!text.empty())
      text += ", ";
    text += algorithm + " for " + std::to_string(count);
  }
  return text;
}

// Gemm: GemmPlan, or EmulatedGemm (MXFP8/NVFP4 without their tensor cores). Each keeps a
// reference to the CublasLtContext, which must outlive this object.
template <typename Gemm>
class LoopGroupedGemm : public GroupedGemm {
  static constexpr bool kEmulated = std::is_same_v<Gemm, EmulatedGemm>;

 public:
  LoopGroupedGemm(const CublasLtContext& context, const std::vector<GemmProblem>& groups,
                  AlgorithmChoice choice, cudaStream_t stream) {
    gemms_.reserve(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      // The plan's own message says why; the prefix says which expert's GEMM it was.
      const std::string which = "loop grouped GEMM, group " + std::to_string(i) + " of " +
                                std::to_string(groups.size()) + " (" + dims(groups[i]) + "): ";
      try {
        gemms_.push_back(std::make_unique<Gemm>(context, groups[i], choice, stream));
      } catch (const Unsupported& e) {
        throw Unsupported(which + e.what());
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(which + e.what());
      }
    }
    if constexpr (kEmulated)
      graph_ = std::make_unique<GraphReplay>([this](cudaStream_t capture) { enqueue(capture); });
  }

  // A native loop launches each expert's GEMM from the host, as a framework does. An emulation
  // (five kernels an expert) replays them as one CUDA graph (kernels/graph_replay.h), captured
  // when planned: its time is then the GPU's work, not the host's enqueueing.
  void run(cudaStream_t stream) const override {
    if (graph_ != nullptr) {
      graph_->launch(stream);
    } else {
      enqueue(stream);
    }
  }

  std::string algorithm() const override {
    // One group is a dense GEMM: the provider's name, then the plan's algorithm (an emulated
    // GEMM's algorithm names the emulation).
    const std::string replay = graph_ != nullptr ? ", one CUDA graph" : "";
    if (gemms_.size() == 1)
      return (kEmulated ? "" : "cuBLASLt ") + gemms_.front()->algorithm() + replay;
    std::vector<std::string> algorithms;
    algorithms.reserve(gemms_.size());
    for (const auto& gemm : gemms_)
      algorithms.push_back(gemm->algorithm());
    return "loop of " + std::to_string(gemms_.size()) + " cuBLASLt GEMMs (" +
           count_algorithms(algorithms) + ")" + replay;
  }

  bool emulated() const override { return kEmulated; }
  // A plan launches its matmul and, with per-tensor factors, the kernel that makes alpha; an
  // emulation also dequantizes both operands first. An emulation's kernels run behind one graph
  // launch, but are counted all the same: a held stream has not been tried with a graph that
  // size, so a large emulation is enqueued without holding it, as before the graph.
  size_t launches() const override { return gemms_.size() * (kEmulated ? 5 : 2); }

 private:
  void enqueue(cudaStream_t stream) const {
    for (const auto& gemm : gemms_)
      gemm->run(stream);
  }

  std::vector<std::unique_ptr<Gemm>> gemms_;
  std::unique_ptr<GraphReplay> graph_;  // emulated loops only
};

}  // namespace

std::unique_ptr<GroupedGemm> make_loop_grouped_gemm(const CublasLtContext& context,
                                                    const std::vector<GemmProblem>& groups,
                                                    AlgorithmChoice choice, bool emulate,
                                                    cudaStream_t stream) {
  check_grouped_problems(groups, "loop grouped GEMM");
  if (emulate)
    return std::make_unique<LoopGroupedGemm<EmulatedGemm>>(context, groups, choice, stream);
  return std::make_unique<LoopGroupedGemm<GemmPlan>>(context, groups, choice, stream);
}

}  // namespace gemmscope
