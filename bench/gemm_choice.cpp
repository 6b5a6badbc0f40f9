#include "bench/gemm_choice.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "quant/base/unsupported.h"

namespace gemmscope {
namespace {

constexpr const char* kOnlyCublasLtEmulates =
    "this GPU has no tensor cores for the recipe; only cuBLASLt's path runs its emulation";

// The candidates of `list`'s providers: all of `every` with auto, else the first listed that runs.
GemmChoice choose(const ImplementationList& list, const std::vector<GemmProvider>& every,
                  const GemmRequest& request) {
  GemmCandidates candidates;
  std::string refused;
  for (const GemmProvider* provider : providers_to_try(list, every)) {
    try {
      if (request.emulate && !provider->emulates)
        throw Unsupported(kOnlyCublasLtEmulates);
      for (std::unique_ptr<GroupedGemm>& gemm : provider->make(request))
        candidates.push_back(std::move(gemm));
      if (!list.automatic)
        break;
    } catch (const Unsupported& e) {
      refused += std::string(refused.empty() ? "" : "; ") + provider->name + ": " + e.what();
    }
  }
  if (candidates.empty())
    throw Unsupported("no implementation can run this case (" + refused + ")");
  return GemmChoice(std::move(candidates), refused);
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

GemmChoice::GemmChoice(std::vector<std::unique_ptr<GroupedGemm>> candidates, std::string refused)
    : candidates_(std::move(candidates)), refused_(std::move(refused)) {
  if (candidates_.empty())
    throw std::invalid_argument("GemmChoice: no candidate GEMM");
}

void GemmChoice::use(size_t index) {
  if (index >= candidates_.size())
    throw std::out_of_range("GemmChoice: no candidate " + std::to_string(index));
  current_ = index;
}

void GemmChoice::keep(size_t index, const std::vector<double>& seconds) {
  use(index);
  trial_seconds_ = seconds;
}

size_t GemmChoice::launches() const {
  size_t most = 0;
  for (const std::unique_ptr<GroupedGemm>& candidate : candidates_)
    most = std::max(most, candidate->launches());
  return most;
}

std::optional<double> GemmChoice::runner_up_pct() const {
  if (trial_seconds_.size() != candidates_.size() || !(trial_seconds_[current_] > 0))
    return std::nullopt;
  const std::optional<size_t> second = runner_up(trial_seconds_, current_);
  if (!second)
    return std::nullopt;
  return 100.0 * (trial_seconds_[*second] / trial_seconds_[current_] - 1.0);
}

std::string GemmChoice::label() const {
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

std::string GemmChoice::trial_times() const {
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

std::vector<const GemmProvider*> providers_to_try(const ImplementationList& list,
                                                  const std::vector<GemmProvider>& every) {
  if (!list.automatic)
    return list.listed;
  std::vector<const GemmProvider*> providers;
  for (const GemmProvider& provider : every)
    providers.push_back(&provider);
  return providers;
}

bool stacked_row_scales_wanted(const ImplementationList& grouped,
                               const std::vector<int64_t>& group_rows) {
  for (const GemmProvider* provider : providers_to_try(grouped, grouped_providers())) {
    const bool takes_rows = std::all_of(group_rows.begin(), group_rows.end(), [&](int64_t rows) {
      return rows % provider->group_row_alignment == 0;
    });
    if (provider->reads_stacked_row_scales && takes_rows)
      return true;
  }
  return false;
}

GemmChoice choose_gemm(const RecipeContext& context, const std::vector<GemmProblem>& problems,
                       bool grouped, bool emulate) {
  const GemmRequest request{context.cublas, problems, context.algorithm, emulate, context.stream};
  return grouped ? choose(context.grouped, grouped_providers(), request)
                 : choose(context.provider, dense_providers(), request);
}

}  // namespace gemmscope
