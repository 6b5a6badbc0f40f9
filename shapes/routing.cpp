#include "shapes/routing.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace gemmscope {
namespace {

constexpr std::string_view kBalanced = "balanced";
constexpr std::string_view kSkewed = "skewed";
constexpr double kMaxAlpha = 4;

[[noreturn]] void refuse_routing(const std::string& text) {
  throw std::invalid_argument("--routing=" + text +
                              ": expected balanced, skewed or skewed:ALPHA with 0 < ALPHA <= 4 "
                              "(expert popularity ~ 1 / rank^ALPHA; skewed is skewed:1)");
}

bool alpha_in_range(double alpha) {
  return alpha > 0 && alpha <= kMaxAlpha;  // false for NaN too
}

// A uniform integer in [0, bound) from the generator's 64-bit outputs, by rejection: outputs
// below 2^64 mod bound are drawn again, so every residue is equally likely. Written out
// because std::uniform_int_distribution's algorithm differs between standard libraries, and
// the popularity permutation must be the same everywhere.
uint64_t uniform_below(std::mt19937_64& generator, uint64_t bound) {
  const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t draw = generator();
    if (draw >= threshold)
      return draw % bound;
  }
}

// by_popularity[i]: the expert whose popularity rank is i + 1. A Fisher-Yates shuffle driven by
// std::mt19937_64, whose output sequence the C++ standard fixes.
std::vector<int64_t> popularity_order(int64_t experts) {
  std::vector<int64_t> by_popularity(static_cast<size_t>(experts));
  std::iota(by_popularity.begin(), by_popularity.end(), int64_t{0});
  std::mt19937_64 generator(kRoutingSeed);
  for (size_t i = by_popularity.size() - 1; i > 0; --i) {
    std::swap(by_popularity[i], by_popularity[uniform_below(generator, i + 1)]);
  }
  return by_popularity;
}

std::vector<int64_t> balanced_rows(int64_t assignments, int64_t experts) {
  std::vector<int64_t> rows(static_cast<size_t>(experts), assignments / experts);
  for (int64_t e = 0; e < assignments % experts; ++e)
    ++rows[static_cast<size_t>(e)];
  return rows;
}

// Expected rows by popularity rank (index 0 most popular), water-filled under `cap`: the
// weights fall with the rank, so the capped experts are the most popular ones, and a rank is
// capped exactly when its share of what the uncapped ranks still hold exceeds the cap.
std::vector<double> capped_shares(int64_t assignments, int64_t cap, double alpha, int64_t experts) {
  const size_t n = static_cast<size_t>(experts);
  std::vector<double> weight(n);
  for (size_t i = 0; i < n; ++i)
    weight[i] = 1.0 / std::pow(static_cast<double>(i + 1), alpha);
  // Suffix sums, smallest weights first: the weight the uncapped ranks i.. share.
  std::vector<double> weight_from(n + 1, 0.0);
  for (size_t i = n; i > 0; --i)
    weight_from[i - 1] = weight_from[i] + weight[i - 1];

  std::vector<double> share(n);
  size_t capped = 0;
  int64_t left = assignments;
  for (; capped < n; ++capped) {
    const double uncapped_share = static_cast<double>(left) * weight[capped] / weight_from[capped];
    if (uncapped_share <= static_cast<double>(cap))
      break;
    share[capped] = static_cast<double>(cap);
    left -= cap;
  }
  for (size_t i = capped; i < n; ++i)
    share[i] = static_cast<double>(left) * weight[i] / weight_from[capped];
  return share;
}

std::vector<int64_t> skewed_rows(int64_t assignments, int64_t cap, double alpha, int64_t experts) {
  const std::vector<int64_t> by_popularity = popularity_order(experts);
  const std::vector<double> share_by_rank = capped_shares(assignments, cap, alpha, experts);
  const size_t n = static_cast<size_t>(experts);
  std::vector<int64_t> rows(n);
  std::vector<double> remainder(n);
  int64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t expert = static_cast<size_t>(by_popularity[i]);
    const double whole = std::floor(share_by_rank[i]);
    rows[expert] = static_cast<int64_t>(whole);
    remainder[expert] = share_by_rank[i] - whole;
    assigned += rows[expert];
  }
  // Largest remainder: the rows the floors left out go one each to the experts with the
  // largest fractional parts, the lower expert first on a tie.
  std::vector<size_t> by_remainder(n);
  std::iota(by_remainder.begin(), by_remainder.end(), size_t{0});
  std::stable_sort(by_remainder.begin(), by_remainder.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  // The shares sum to `assignments`, so the floors leave out fewer rows than there are
  // experts; an expert at the cap (a capped share, remainder 0) is passed over, so that a
  // rounding error in the shares can never push one above it. Room always remains: the caps
  // sum to at least `assignments` (top-k <= experts).
  for (size_t k = 0; assigned < assignments; k = (k + 1) % n) {
    const size_t expert = by_remainder[k];
    if (rows[expert] < cap) {
      ++rows[expert];
      ++assigned;
    }
  }
  return rows;
}

}  // namespace

Routing parse_routing(const std::string& text) {
  if (text == kBalanced)
    return Routing{Routing::Kind::kBalanced, 1.0};
  if (text == kSkewed)
    return Routing{Routing::Kind::kSkewed, 1.0};
  const std::string prefix = std::string(kSkewed) + ":";
  if (text.compare(0, prefix.size(), prefix) != 0)
    refuse_routing(text);
  const char* const first = text.data() + prefix.size();
  const char* const last = text.data() + text.size();
  double alpha = 0;
  // from_chars takes no sign, no blank and no hexadecimal, and reads "nan" and "inf", which
  // the range check refuses.
  const auto [end, error] = std::from_chars(first, last, alpha);
  if (error != std::errc() || end != last || !alpha_in_range(alpha))
    refuse_routing(text);
  return Routing{Routing::Kind::kSkewed, alpha};
}

std::string to_string(const Routing& routing) {
  if (routing.kind == Routing::Kind::kBalanced)
    return std::string(kBalanced);
  // The shortest text that reads back as the same double.
  char digits[32];
  const auto result = std::to_chars(digits, digits + sizeof digits, routing.alpha);
  return std::string(kSkewed) + ":" + std::string(digits, result.ptr);
}

std::vector<int64_t> all_expert_rows(const ModelConfig& config, const Routing& routing) {
  validate(config);
  if (!config.is_moe()) {
    throw std::invalid_argument(
        "routing: the model is dense (--num_experts is 0), it routes no tokens");
  }
  // validate() bounds both products by kMaxGemmDimension.
  const int64_t group_tokens = config.tokens() * config.expert_parallel;
  const int64_t assignments = group_tokens * config.num_experts_per_token;
  if (routing.kind == Routing::Kind::kBalanced)
    return balanced_rows(assignments, config.num_experts);
  if (!alpha_in_range(routing.alpha))
    refuse_routing(to_string(routing));
  // A token picks distinct experts: no expert gets more rows than the group has tokens.
  return skewed_rows(assignments, group_tokens, routing.alpha, config.num_experts);
}

RankRouting route_tokens(const ModelConfig& config, const Routing& routing) {
  const std::vector<int64_t> rows = all_expert_rows(config, routing);
  const auto per_rank = static_cast<std::ptrdiff_t>(config.experts_per_rank());
  RankRouting most_loaded;
  int64_t most_rows = -1;
  for (int64_t rank = 0; rank < config.expert_parallel; ++rank) {
    const auto first = rows.begin() + rank * per_rank;
    const int64_t rank_rows = std::accumulate(first, first + per_rank, int64_t{0});
    if (rank_rows > most_rows) {  // strictly more: the lowest rank wins a tie
      most_rows = rank_rows;
      most_loaded.rank = rank;
      most_loaded.rows.assign(first, first + per_rank);
    }
  }
  return most_loaded;
}

}  // namespace gemmscope
