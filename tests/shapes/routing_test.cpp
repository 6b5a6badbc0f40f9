// --routing parsing and the routed rows of each expert: exact sums, the per-expert cap, the rank
// timed, and a pinned skewed result that fails if the generator or the algorithm changes.

#include "shapes/routing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "shapes/presets.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Routing kBalanced{Routing::Kind::kBalanced, 1.0};

Routing skewed(double alpha) {
  return Routing{Routing::Kind::kSkewed, alpha};
}

int64_t sum(const std::vector<int64_t>& rows) {
  return std::accumulate(rows.begin(), rows.end(), int64_t{0});
}

// A small MoE config: `experts` experts, top-k, tokens per rank, expert_parallel ranks.
ModelConfig small_moe(int64_t experts, int64_t top_k, int64_t tokens, int64_t expert_parallel) {
  ModelConfig config;
  config.micro_batch_size = 1;
  config.sequence_length = tokens;
  config.num_experts = experts;
  config.num_experts_per_token = top_k;
  config.moe_intermediate_size = 128;
  config.expert_parallel = expert_parallel;
  return config;
}

TEST(ParseRouting, AcceptsBalancedSkewedAndAnAlpha) {
  EXPECT_EQ(parse_routing("balanced").kind, Routing::Kind::kBalanced);
  const Routing plain = parse_routing("skewed");
  EXPECT_EQ(plain.kind, Routing::Kind::kSkewed);
  EXPECT_EQ(plain.alpha, 1.0);
  EXPECT_EQ(parse_routing("skewed:1.5").alpha, 1.5);
  EXPECT_EQ(parse_routing("skewed:4").alpha, 4.0);
  EXPECT_EQ(parse_routing("skewed:0.25").alpha, 0.25);
  EXPECT_EQ(parse_routing("skewed:2e-1").alpha, 0.2);
}

TEST(ParseRouting, RefusesEverythingElseNamingTheFlag) {
  for (const char* bad :
       {"", "Balanced", "BALANCED", "skewed:", "skewed:abc", "skewed:0", "skewed:-1", "skewed:nan",
        "skewed:inf", "skewed:4.0001", "skewed:1x", "skewed: 1", "skewed:+1", "skewed:0x1",
        "skewed:1e-400", "balanced:1", "skewed1", " balanced", "uniform"}) {
    const std::string message = invalid_argument_message([&] { parse_routing(bad); });
    EXPECT_THAT(message, HasSubstr(std::string("--routing=") + bad +
                                   ": expected balanced, "
                                   "skewed or skewed:ALPHA"))
        << bad;
    EXPECT_THAT(message, HasSubstr("0 < ALPHA <= 4")) << bad;
  }
}

TEST(RoutingToString, RoundTripsExactly) {
  EXPECT_EQ(to_string(kBalanced), "balanced");
  EXPECT_EQ(to_string(skewed(1)), "skewed:1");
  EXPECT_EQ(to_string(skewed(1.5)), "skewed:1.5");
  for (double alpha : {1.0, 1.5, 0.1, 4.0, 1.0 / 3.0, 2.0000000000000004, 1e-9}) {
    const Routing back = parse_routing(to_string(skewed(alpha)));
    EXPECT_EQ(back.kind, Routing::Kind::kSkewed);
    EXPECT_EQ(back.alpha, alpha) << to_string(skewed(alpha));
  }
  EXPECT_EQ(parse_routing(to_string(kBalanced)).kind, Routing::Kind::kBalanced);
}

TEST(BalancedRouting, Qwen3ThirtyBGivesEveryExpertTheSameRows) {
  const RankRouting routing = route_tokens(find_preset("qwen3-30b-a3b")->config, kBalanced);
  EXPECT_EQ(routing.rank, 0);
  ASSERT_EQ(routing.rows.size(), 128u);
  EXPECT_THAT(routing.rows, Each(4096 * 8 / 128));
}

TEST(BalancedRouting, TheFirstExpertsTakeTheRemainder) {
  // 10 tokens x top-3 = 30 rows over 8 experts: 30 mod 8 = 6 experts get 4, two get 3.
  EXPECT_THAT(all_expert_rows(small_moe(8, 3, 10, 1), kBalanced),
              ElementsAre(4, 4, 4, 4, 4, 4, 3, 3));
  // Two ranks of 10 tokens: 60 rows, the first 4 experts (rank 0) get 8, the others 7.
  const RankRouting routing = route_tokens(small_moe(8, 3, 10, 2), kBalanced);
  EXPECT_EQ(routing.rank, 0);
  EXPECT_THAT(routing.rows, ElementsAre(8, 8, 8, 8));
}

TEST(BalancedRouting, EqualRanksPickTheLowest) {
  // 4 ranks x 64 tokens x top-2 = 512 rows, 64 for each of the 8 experts: all ranks equal.
  const RankRouting routing = route_tokens(small_moe(8, 2, 64, 4), kBalanced);
  EXPECT_EQ(routing.rank, 0);
  EXPECT_THAT(routing.rows, ElementsAre(64, 64));
}

// The pinned result: a change of generator, permutation or rounding changes these numbers.
// 8 experts, top-2, 64 tokens on each of 2 ranks: 256 rows, at most 128 per expert.
TEST(SkewedRouting, PinnedSmallConfig) {
  const ModelConfig config = small_moe(8, 2, 64, 2);
  // alpha 1: popularity ranks 1..8 fall on experts 7, 6, 2, 3, 4, 0, 5, 1 (kRoutingSeed).
  EXPECT_THAT(all_expert_rows(config, skewed(1)), ElementsAre(16, 12, 31, 24, 19, 13, 47, 94));
  const RankRouting routing = route_tokens(config, skewed(1));
  EXPECT_EQ(routing.rank, 1);  // experts 4..7: 173 rows against 83
  EXPECT_THAT(routing.rows, ElementsAre(19, 13, 47, 94));
  // alpha 2: the hottest expert's share (167.6) is capped at the 128 tokens of the group.
  EXPECT_THAT(all_expert_rows(config, skewed(2)), ElementsAre(7, 4, 27, 15, 10, 5, 60, 128));
}

TEST(SkewedRouting, IsTheSameRunToRun) {
  const ModelConfig& config = find_preset("deepseek-v3")->config;
  const RankRouting first = route_tokens(config, skewed(1.2));
  const RankRouting second = route_tokens(config, skewed(1.2));
  EXPECT_EQ(first.rank, second.rank);
  EXPECT_EQ(first.rows, second.rows);
}

TEST(Routing, EveryAssignmentIsRoutedAndNoExpertExceedsTheGroupsTokens) {
  const ModelConfig configs[] = {
      small_moe(8, 2, 64, 2),
      small_moe(8, 3, 10, 1),
      small_moe(8, 7, 64, 1),
      small_moe(64, 6, 777, 4),
      small_moe(256, 8, 1000, 8),
      small_moe(3, 1, 5, 3),
      find_preset("qwen3-30b-a3b")->config,
      find_preset("deepseek-v3")->config,
      find_preset("mixtral-8x7b")->config,
      find_preset("gpt-oss-120b")->config,
  };
  const Routing routings[] = {kBalanced, skewed(0.01), skewed(0.5),
                              skewed(1), skewed(1.7),  skewed(4)};
  for (const ModelConfig& config : configs) {
    const int64_t group_tokens = config.tokens() * config.expert_parallel;
    for (const Routing& routing : routings) {
      SCOPED_TRACE(config.describe() + " " + to_string(routing));
      const std::vector<int64_t> rows = all_expert_rows(config, routing);
      ASSERT_EQ(static_cast<int64_t>(rows.size()), config.num_experts);
      EXPECT_EQ(sum(rows), group_tokens * config.num_experts_per_token);
      EXPECT_LE(*std::max_element(rows.begin(), rows.end()), group_tokens);
      EXPECT_GE(*std::min_element(rows.begin(), rows.end()), 0);
      // The rank returned is the most loaded one, the lowest on a tie.
      const RankRouting rank = route_tokens(config, routing);
      ASSERT_EQ(static_cast<int64_t>(rank.rows.size()), config.experts_per_rank());
      const auto per_rank = static_cast<std::ptrdiff_t>(config.experts_per_rank());
      for (int64_t r = 0; r < config.expert_parallel; ++r) {
        const auto first = rows.begin() + r * per_rank;
        const int64_t load = std::accumulate(first, first + per_rank, int64_t{0});
        if (r < rank.rank) {
          EXPECT_LT(load, sum(rank.rows)) << "rank " << r;
        } else {
          EXPECT_LE(load, sum(rank.rows)) << "rank " << r;
        }
      }
      EXPECT_TRUE(
          std::equal(rank.rows.begin(), rank.rows.end(), rows.begin() + rank.rank * per_rank));
    }
  }
}

TEST(SkewedRouting, LoadsTheHottestExpertsMoreThanBalanced) {
  const ModelConfig& config = find_preset("qwen3-30b-a3b")->config;
  const auto peak_over_mean = [&](const Routing& routing) {
    const std::vector<int64_t> rows = route_tokens(config, routing).rows;
    return static_cast<double>(*std::max_element(rows.begin(), rows.end())) *
           static_cast<double>(rows.size()) / static_cast<double>(sum(rows));
  };
  EXPECT_DOUBLE_EQ(peak_over_mean(kBalanced), 1.0);
  EXPECT_GT(peak_over_mean(skewed(0.5)), 1.5);
  EXPECT_GT(peak_over_mean(skewed(1)), peak_over_mean(skewed(0.5)));
  // The cap: a token picks distinct experts, so no expert gets more rows than the 4096 tokens.
  EXPECT_EQ(peak_over_mean(skewed(4)), 4096.0 * 128 / 32768);
}

TEST(SkewedRouting, CapHoldsAtExtremeAlpha) {
  // top-7 of 8 experts: 448 rows, 64 at most each; alpha 4 would give the hottest 412.
  const std::vector<int64_t> rows = all_expert_rows(small_moe(8, 7, 64, 1), skewed(4));
  EXPECT_EQ(sum(rows), 448);
  EXPECT_THAT(rows, Each(::testing::Le(64)));
  EXPECT_EQ(std::count(rows.begin(), rows.end(), 64), 6);  // 6 x 64 + the remaining 64 split
  // top-k = every expert: each expert gets every token, whatever the skew.
  EXPECT_THAT(all_expert_rows(small_moe(8, 8, 64, 2), skewed(4)), Each(128));
}

TEST(SkewedRouting, SkewMovesTheLoadAcrossRanks) {
  // DeepSeek-V3 on 8 ranks: balanced, every rank gets 4096 x 8 rows; skewed, the rank timed
  // holds hot experts and gets more.
  const ModelConfig& config = find_preset("deepseek-v3")->config;
  EXPECT_EQ(sum(route_tokens(config, kBalanced).rows), 4096 * 8);
  EXPECT_GT(sum(route_tokens(config, skewed(1)).rows), 4096 * 8);
}

TEST(RoutingRefusal, DenseModelsAndBadAlphasAreRefused) {
  EXPECT_THAT(invalid_argument_message([] { route_tokens(ModelConfig{}, kBalanced); }),
              HasSubstr("the model is dense"));
  EXPECT_THAT(invalid_argument_message([] { route_tokens(small_moe(8, 2, 64, 1), skewed(0)); }),
              HasSubstr("--routing=skewed:0"));
  ModelConfig invalid = small_moe(8, 2, 64, 3);  // 3 ranks cannot split 8 experts
  EXPECT_THAT(invalid_argument_message([&] { route_tokens(invalid, kBalanced); }),
              HasSubstr("--expert_parallel=3 must divide --num_experts=8"));
}

}  // namespace
}  // namespace gemmscope
