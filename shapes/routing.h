#pragma once
// How a mixture-of-experts layer's routed rows are spread over the experts of the rank that is
// timed: --routing=balanced (every expert gets the same share) or --routing=skewed[:alpha]
// (a fixed-seed Zipf-like popularity, so some experts get many rows and some few).

#include <cstdint>
#include <string>
#include <vector>

#include "shapes/model_config.h"

namespace gemmscope {

struct Routing {
  enum class Kind { kBalanced, kSkewed } kind = Kind::kBalanced;
  double alpha = 1.0;  // skewed: expert popularity ~ 1 / rank^alpha
};

// "balanced", "skewed" (alpha 1) or "skewed:ALPHA" with 0 < ALPHA <= 4. Throws
// std::invalid_argument naming --routing and the value otherwise.
Routing parse_routing(const std::string& text);
// "balanced" or "skewed:1.5": parse_routing(to_string(r)) gives r back.
std::string to_string(const Routing& routing);

// The seed of the skewed routing: fixed, so a run is reproducible and two runs comparable.
inline constexpr uint64_t kRoutingSeed = 0x5eed0e0e;

struct RankRouting {
  int64_t rank = 0;           // the expert-parallel rank timed: the most loaded one
  std::vector<int64_t> rows;  // routed rows of each of its experts, experts_per_rank() entries
};

// Routes the expert-parallel group's tokens (tokens() on each of expert_parallel ranks), each
// to num_experts_per_token distinct experts, and returns the rows of the most loaded rank's
// experts (the rank a step waits for; the lowest rank on a tie). The A = tokens() x top-k x
// expert_parallel assignments always sum exactly to A, and no expert gets more rows than the
// group has tokens, tokens() x expert_parallel (a token picks distinct experts).
// - Balanced: split as evenly as integers allow (the first A mod num_experts experts get one
//   row more).
// - Skewed: expected counts of a Zipf-like popularity: expert e gets A x w_e / sum(w), with
//   w_e = 1 / r_e^alpha and r_e its popularity rank (1 = most popular); an expert whose share
//   exceeds the tokens is capped there and the excess shared among the others in proportion
//   to their weights; shares are rounded by largest remainder (ties: the lower expert). The
//   popularity ranks are a permutation of the experts, a Fisher-Yates shuffle driven by
//   std::mt19937_64 seeded with kRoutingSeed (its output is fixed by the C++ standard; the
//   uniform draws are gemmscope's own, not std::uniform_int_distribution's), so it is the same
//   on every platform and the hot experts spread over the ranks as they would in a run. The
//   weights use std::pow: where rank^alpha is a double exactly (integer alpha) math libraries
//   agree; otherwise one may differ in the last bit, which moves a row only where two
//   remainders tie to that bit.
// Requires a valid MoE config (validate()); throws std::invalid_argument (see validate) for an
// invalid one and for a dense one.
RankRouting route_tokens(const ModelConfig& config, const Routing& routing);

// The routed rows of every expert of the expert-parallel group (num_experts entries, expert
// order; rank r holds experts [r, r + 1) x experts_per_rank()), as route_tokens computes them
// before it picks the rank: they sum to tokens() x top-k x expert_parallel. For tests and for
// reports that show the whole group's load.
std::vector<int64_t> all_expert_rows(const ModelConfig& config, const Routing& routing);

}  // namespace gemmscope
