#pragma once
// The value of --grouped (expert GEMMs) or --provider (dense GEMMs): `auto`, every
// implementation that can run a case, the fastest kept by timing them in the case's group
// (bench/timing/alternative_trial.h); or a list, the first listed that can run the case (all its
// configurations timed, where it has several).

#include <string>
#include <vector>

namespace gemmscope {

template <class Implementation>
struct ImplementationList {
  bool automatic = true;
  std::vector<Implementation> listed;  // in the order tried; empty when automatic

  static ImplementationList only(std::vector<Implementation> listed) {
    return {false, std::move(listed)};
  }
  bool operator==(const ImplementationList& other) const {
    return automatic == other.automatic && listed == other.listed;
  }

  // "auto", or the listed names between commas: the flag's value, for the run's context.
  template <class Name>
  std::string text(Name name) const {
    if (automatic)
      return "auto";
    std::string text;
    for (const Implementation implementation : listed)
      text += (text.empty() ? "" : ",") + std::string(name(implementation));
    return text;
  }
};

}  // namespace gemmscope
