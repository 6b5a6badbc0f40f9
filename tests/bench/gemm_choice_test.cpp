// What a case says about the GEMM it runs (bench/gemm_choice.h): the candidate in use, the trial's
// verdict (the kept candidate's time, the runner-up's and by how much it lost; every candidate's
// time for --list_kernels), and what could not run. Fake GEMMs: no GPU needed.

#include "bench/gemm_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class FakeGemm : public GroupedGemm {
 public:
  FakeGemm(std::string name, size_t launches) : name_(std::move(name)), launches_(launches) {}
  void run(cudaStream_t /*stream*/) const override {}
  std::string algorithm() const override { return name_; }
  size_t launches() const override { return launches_; }

 private:
  std::string name_;
  size_t launches_;
};

GemmChoice three_candidates(std::string refused) {
  std::vector<std::unique_ptr<GroupedGemm>> candidates;
  candidates.push_back(std::make_unique<FakeGemm>("loop", 32));
  candidates.push_back(std::make_unique<FakeGemm>("cutlass 128x128", 1));
  candidates.push_back(std::make_unique<FakeGemm>("cutlass 64x128", 2));
  return GemmChoice(std::move(candidates), std::move(refused));
}

TEST(GemmChoice, RunsTheFirstCandidateUntilTheTrialKeepsAnother) {
  GemmChoice gemm = three_candidates("");
  EXPECT_EQ(gemm.candidates(), 3u);
  EXPECT_EQ(gemm.current().algorithm(), "loop");
  EXPECT_EQ(gemm.launches(), 32u);  // the most of any candidate: what a batch must allow
  EXPECT_EQ(gemm.label(), "loop");
  EXPECT_FALSE(gemm.runner_up_pct().has_value());
  gemm.use(2);
  EXPECT_EQ(gemm.current().algorithm(), "cutlass 64x128");
  EXPECT_THROW(gemm.use(3), std::out_of_range);
}

TEST(GemmChoice, LabelNamesTheKeptCandidateAndTheRunnerUp) {
  GemmChoice gemm = three_candidates("cublas: BF16 only");
  gemm.keep(1, {300e-6, 200e-6, 210e-6});
  EXPECT_EQ(gemm.current().algorithm(), "cutlass 128x128");
  ASSERT_TRUE(gemm.runner_up_pct().has_value());
  EXPECT_NEAR(*gemm.runner_up_pct(), 5.0, 1e-9);
  EXPECT_EQ(gemm.label(),
            "cutlass 128x128 [kept at 200.0 us of 3 timed; next: cutlass 64x128 210.0 us, +5.0%] "
            "[refused: cublas: BF16 only]");
}

TEST(GemmChoice, ACandidateNeverTimedIsNoRunnerUp) {
  GemmChoice gemm = three_candidates("");
  gemm.keep(0, {100e-6, 0, 0});
  EXPECT_FALSE(gemm.runner_up_pct().has_value());
  EXPECT_THAT(gemm.label(), Not(HasSubstr("next:")));
}

TEST(GemmChoice, TrialTimesListEveryCandidateInTheOrderTried) {
  GemmChoice gemm = three_candidates("");
  EXPECT_EQ(gemm.trial_times(), "");  // no trial yet
  gemm.keep(1, {300e-6, 200e-6, 0});
  EXPECT_EQ(gemm.trial_times(),
            "loop 300.0 us; cutlass 128x128 200.0 us (kept); cutlass 64x128 not timed");
}

// A quantizer writes the stacked 1x128 scales only for a provider the case tries that reads them
// and can take its experts' (padded) rows; under auto that is whichever of the grouped providers
// reads them in this build.
TEST(StackedRowScales, WantedWhereATriedProviderReadsThemAndTakesTheRows) {
  const GemmProvider reads{"reads", false, nullptr, 128, true};
  const GemmProvider ignores{"ignores", false, nullptr, 1, false};
  const std::vector<int64_t> whole_tiles = {128, 256, 384};
  const std::vector<int64_t> sixteen = {128, 48};
  EXPECT_TRUE(stacked_row_scales_wanted(ImplementationList::only({&reads}), whole_tiles));
  EXPECT_TRUE(stacked_row_scales_wanted(ImplementationList::only({&ignores, &reads}), whole_tiles));
  EXPECT_FALSE(stacked_row_scales_wanted(ImplementationList::only({&reads}), sixteen));
  EXPECT_FALSE(stacked_row_scales_wanted(ImplementationList::only({&ignores}), whole_tiles));
  bool any_reads = false;
  for (const GemmProvider& provider : grouped_providers())
    any_reads = any_reads || provider.reads_stacked_row_scales;
  EXPECT_EQ(stacked_row_scales_wanted(ImplementationList{}, whole_tiles), any_reads);
}

TEST(GemmChoice, NeedsACandidate) {
  EXPECT_THROW(GemmChoice({}, "loop: no"), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
