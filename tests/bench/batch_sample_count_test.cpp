// How many samples a batch takes: whole rounds while their launches fit behind a held stream,
// fewer when they do not, and never none.

#include <gtest/gtest.h>

#include <vector>

#include "bench/timing/steady_state_run.h"

namespace gemmscope {
namespace {

TEST(BatchSampleCount, DenseCasesKeepTheirWholeRounds) {
  // 24 dense cases of one launch each: 24 x (1 + 3) = 96 launches, well within the limit.
  const std::vector<size_t> dense(24, 1);
  EXPECT_EQ(batch_sample_count(dense, 0, 24), 24u);
  EXPECT_EQ(batch_sample_count(dense, 5, 24), 24u);
  // 32 of them (the most a batch takes, about 128 launches) fit too.
  EXPECT_EQ(batch_sample_count(std::vector<size_t>(32, 1), 0, 32), 32u);
}

TEST(BatchSampleCount, ManyLaunchesCutTheBatchWhereTheLimitIs) {
  // Grouped cases of 40 launches: (40 + 3) x 11 = 473 fit in 512, a twelfth would not.
  const std::vector<size_t> grouped(12, 40);
  EXPECT_EQ(batch_sample_count(grouped, 0, 12), 11u);
  // Mixed: from position 1 the members are 100, 100, 1, 1 (position 4 wraps to member 0), twice
  // over: 2 x (103 + 103 + 4 + 4) = 428, and the next 100 (531) is over.
  const std::vector<size_t> mixed = {1, 100, 100, 1};
  EXPECT_EQ(batch_sample_count(mixed, 1, 12), 8u);
}

TEST(BatchSampleCount, ASampleLargerThanTheLimitGoesAlone) {
  const std::vector<size_t> huge = {2000, 1};
  EXPECT_EQ(batch_sample_count(huge, 0, 8), 1u);
  EXPECT_EQ(batch_sample_count(huge, 1, 8), 1u);  // the 1 then the 2000: over, so the 1 alone
  EXPECT_EQ(batch_sample_count(huge, 0, 0), 1u);  // never none
}

}  // namespace
}  // namespace gemmscope
