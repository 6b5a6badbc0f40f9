#pragma once
// The value of --grouped (expert GEMMs) or --provider (dense GEMMs): `auto`, every
// implementation that can run a case, the fastest kept by timing them in the case's group
// (bench/timing/alternative_trial.h); or a list, the first listed that can run the case (all its
// configurations timed, where it has several).

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
