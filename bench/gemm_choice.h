#pragma once
// Which GEMM a GEMM case runs: the candidates, chosen when the case is prepared, and the one in
// use, chosen, where several can run it, when the case is timed. A dense case's candidates come
// from --provider, a grouped (expert) case's from --grouped (kernels/gemm_provider.h's lists):
// with `auto` every configuration of every provider that can run the case, otherwise every
// configuration of the first listed one that can. Timing tries the
// candidates while the case's group settles and keeps the fastest (bench/timing/
// alternative_trial.h); the label names it, the runner-up's time and why others could not run.

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/recipes/recipe.h"
#include "kernels/grouped_gemm.h"

namespace gemmscope {

class GemmChoice {
 public:
  // `refused`: "cutlass: <reason>; ..." for the implementations that could not run the case.
  GemmChoice(std::vector<std::unique_ptr<GroupedGemm>> candidates, std::string refused);

  // Enqueues the current candidate.
  void run(cudaStream_t stream) const { current().run(stream); }
  const GroupedGemm& current() const { return *candidates_[current_]; }

  size_t candidates() const { return candidates_.size(); }
  void use(size_t index);
  // The trial's verdict (TimedWork::keep_alternative).
  void keep(size_t index, const std::vector<double>& seconds);
  // The most launches of any candidate.
  size_t launches() const;

  // The current candidate's algorithm; after a trial, the runner-up and its time; then what was
  // refused.
  std::string label() const;
  // After a trial among several: the runner-up's time over the kept one's, minus 1, in percent.
  std::optional<double> runner_up_pct() const;
  // After a trial among several: every candidate's algorithm and trial time, in the order they
  // were tried, "; "-separated, the kept one marked; "" before a trial.
  std::string trial_times() const;

 private:
  std::vector<std::unique_ptr<GroupedGemm>> candidates_;
  size_t current_ = 0;
  std::string refused_;
  std::vector<double> trial_seconds_;  // per candidate, once timed
};

// The providers a case of `list` tries, in order: every one of `every` under auto, else the
// listed ones.
std::vector<const GemmProvider*> providers_to_try(const ImplementationList& list,
                                                  const std::vector<GemmProvider>& every);

// Whether a grouped case's quantizers should write the stacked 1x128 row scales: some provider
// the case tries (--grouped) reads them and can take its groups' (padded) rows.
bool stacked_row_scales_wanted(const ImplementationList& grouped,
                               const std::vector<int64_t>& group_rows);

// `emulate`: the recipe's GEMMs run emulated on this GPU (only cuBLASLt's path does that).
// Throws Unsupported listing every implementation's reason when none can run the problems.
GemmChoice choose_gemm(const RecipeContext& context, const std::vector<GemmProblem>& problems,
                       bool grouped, bool emulate);

}  // namespace gemmscope
