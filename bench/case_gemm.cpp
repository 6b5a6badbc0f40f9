#include "bench/case_gemm.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "kernels/cutlass/dense_gemm.h"
#include "kernels/deepgemm/dense_gemm.h"
#include "quant/base/unsupported.h"

namespace gemmscope {
namespace {

constexpr const char* kOnlyCublasLtEmulates =
    "this GPU has no tensor cores for the recipe; only cuBLASLt's path runs its emulation";

using Candidates = std::vector<std::unique_ptr<GroupedGemm>>;

Candidates one(std::unique_ptr<GroupedGemm> gemm) {
  Candidates candidates;
  candidates.push_back(std::move(gemm));
  return candidates;
}

Candidates grouped_candidates(GroupedImplementation implementation, const RecipeContext& context,
                              const std::vector<GemmProblem>& problems, bool emulate) {
  if (emulate && implementation != GroupedImplementation::kLoop)
    throw Unsupported(kOnlyCublasLtEmulates);
  switch (implementation) {
    case GroupedImplementation::kLoop:
      return one(make_loop_grouped_gemm(context.cublas, problems, context.algorithm, emulate,
                                        context.stream));
    case GroupedImplementation::kCublas:
      return one(make_cublas_grouped_gemm(problems, context.stream));
    case GroupedImplementation::kCutlass:
      return make_cutlass_grouped_gemms(problems, context.stream);
  }
  throw std::logic_error("unknown grouped GEMM implementation");
}

Candidates dense_candidates(DenseProvider provider, const RecipeContext& context,
                            const std::vector<GemmProblem>& problems, bool emulate) {
  if (emulate && provider != DenseProvider::kCublasLt)
    throw Unsupported(kOnlyCublasLtEmulates);
  switch (provider) {
    case DenseProvider::kCublasLt:
      return one(make_loop_grouped_gemm(context.cublas, problems, context.algorithm, emulate,
                                        context.stream));
    case DenseProvider::kCutlass:
      return make_cutlass_dense_gemms(problems.front(), context.stream);
    case DenseProvider::kDeepGemm:
      return make_deepgemm_dense_gemms(problems.front(), context.stream);
  }
  throw std::logic_error("unknown dense GEMM provider");
}

// The candidates of `list`'s implementations: all of them with auto, else the first that runs.
template <class Implementation, class Make, class Name>
CaseGemm choose(const ImplementationList<Implementation>& list,
                const std::vector<Implementation>& every, Make make, Name name) {
  Candidates candidates;
  std::string refused;
  for (const Implementation implementation : list.automatic ? every : list.listed) {
    try {
      for (std::unique_ptr<GroupedGemm>& gemm : make(implementation))
        candidates.push_back(std::move(gemm));
      if (!list.automatic)
        break;
    } catch (const Unsupported& e) {
      refused += std::string(refused.empty() ? "" : "; ") + name(implementation) + ": " + e.what();
    }
  }
  if (candidates.empty())
    throw Unsupported("no implementation can run this case (" + refused + ")");
  return CaseGemm(std::move(candidates), refused);
}

std::string microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", seconds * 1e6);
  return text;
}

// The fastest timed candidate other than `kept`.
std::optional<size_t> runner_up(const std::vector<double>& seconds, size_t kept) {
  std::optional<size_t> best;
  for (size_t i = 0; i < seconds.size(); ++i) {
    if (i != kept && seconds[i] > 0 && (!best || seconds[i] < seconds[*best]))
      best = i;
  }
  return best;
}

}  // namespace

CaseGemm::CaseGemm(std::vector<std::unique_ptr<GroupedGemm>> candidates, std::string refused)
    : candidates_(std::move(candidates)), refused_(std::move(refused)) {
  if (candidates_.empty())
    throw std::invalid_argument("CaseGemm: no candidate GEMM");
}

void CaseGemm::use(size_t index) {
  if (index >= candidates_.size())
    throw std::out_of_range("CaseGemm: no candidate " + std::to_string(index));
  current_ = index;
}

void CaseGemm::keep(size_t index, const std::vector<double>& seconds) {
  use(index);
  trial_seconds_ = seconds;
}

size_t CaseGemm::launches() const {
  size_t most = 0;
  for (const std::unique_ptr<GroupedGemm>& candidate : candidates_)
    most = std::max(most, candidate->launches());
  return most;
}

std::optional<double> CaseGemm::runner_up_pct() const {
  if (trial_seconds_.size() != candidates_.size() || !(trial_seconds_[current_] > 0))
    return std::nullopt;
  const std::optional<size_t> second = runner_up(trial_seconds_, current_);
  if (!second)
    return std::nullopt;
  return 100.0 * (trial_seconds_[*second] / trial_seconds_[current_] - 1.0);
}

std::string CaseGemm::label() const {
  std::string label = current().algorithm();
  if (const std::optional<double> pct = runner_up_pct()) {
    const size_t next = *runner_up(trial_seconds_, current_);
    char increase[32];
    std::snprintf(increase, sizeof increase, "+%.1f%%", *pct);
    label += " [kept at " + microseconds(trial_seconds_[current_]) + " of " +
             std::to_string(candidates_.size()) +
             " timed; next: " + candidates_[next]->algorithm() + " " +
             microseconds(trial_seconds_[next]) + ", " + increase + "]";
  }
  if (!refused_.empty())
    label += " [refused: " + refused_ + "]";
  return label;
}

std::string CaseGemm::trial_times() const {
  if (trial_seconds_.size() != candidates_.size() || candidates_.size() < 2)
    return "";
  std::string text;
  for (size_t i = 0; i < candidates_.size(); ++i) {
    text += (i == 0 ? "" : "; ") + candidates_[i]->algorithm() + " " +
            (trial_seconds_[i] > 0 ? microseconds(trial_seconds_[i]) : "not timed") +
            (i == current_ ? " (kept)" : "");
  }
  return text;
}

CaseGemm make_case_gemm(const RecipeContext& context, const std::vector<GemmProblem>& problems,
                        bool grouped, bool emulate) {
  if (grouped) {
    return choose(
        context.grouped,
        std::vector<GroupedImplementation>(std::begin(kGroupedImplementations),
                                           std::end(kGroupedImplementations)),
        [&](GroupedImplementation i) { return grouped_candidates(i, context, problems, emulate); },
        grouped_implementation_name);
  }
  return choose(
      context.provider,
      std::vector<DenseProvider>(std::begin(kDenseProviders), std::end(kDenseProviders)),
      [&](DenseProvider p) { return dense_candidates(p, context, problems, emulate); },
      dense_provider_name);
}

}  // namespace gemmscope
