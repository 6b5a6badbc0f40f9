#pragma once
// The value of --grouped (expert GEMMs) or --provider (dense GEMMs): `auto`, every
// implementation that can run a case, the fastest kept by timing them in the case's group
// (bench/timing/alternative_trial.h); or a list, the first listed that can run the case (all its
// configurations timed, where it has several).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm_provider.h"

namespace gemmscope {

struct ImplementationList {
  bool automatic = true;
  // In the order tried; empty when automatic. Entries of kernels/gemm_provider.h's lists.
  std::vector<const GemmProvider*> listed;

  static ImplementationList only(std::vector<const GemmProvider*> listed) {
    return {false, std::move(listed)};
  }
  bool operator==(const ImplementationList& other) const {
    return automatic == other.automatic && listed == other.listed;
  }

  // The multiple a grouped case pads its experts' rows to for the listed providers (the largest
  // they need); 1 under auto, where a provider that needs more refuses cases whose rows are not.
  int64_t group_row_alignment() const {
    int64_t alignment = 1;
    for (const GemmProvider* provider : listed)
      alignment = std::max(alignment, provider->group_row_alignment);
    return alignment;
  }

  // "auto", or the listed names between commas: the flag's value, for the run's context.
  std::string text() const {
    if (automatic)
      return "auto";
    std::string text;
    for (const GemmProvider* provider : listed)
      text += (text.empty() ? "" : ",") + std::string(provider->name);
    return text;
  }
};

}  // namespace gemmscope
