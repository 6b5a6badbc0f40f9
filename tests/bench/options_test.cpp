#include "bench/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;

// argv as main() receives it, with storage that outlives the parse.
struct Args {
  explicit Args(std::vector<std::string> args) : storage(std::move(args)) {
    storage.insert(storage.begin(), "gemm_bench");
    for (std::string& s : storage)
      pointers.push_back(s.data());
    pointers.push_back(nullptr);
    argc = static_cast<int>(storage.size());
  }
  std::vector<std::string> remaining() const {
    return std::vector<std::string>(pointers.begin() + 1, pointers.begin() + argc);
  }
  std::vector<std::string> storage;
  std::vector<char*> pointers;
  int argc;
};

TEST(Options, DefaultsWhenNoFlags) {
  Args args({});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_FALSE(options.verify);
  EXPECT_FALSE(options.autotune);
  EXPECT_TRUE(options.l2_flush);
  EXPECT_FALSE(options.profile);
  EXPECT_FALSE(options.emulate);
  EXPECT_EQ(options.warmup.min_s, 3.0);
  EXPECT_EQ(options.warmup_runs, 3);
  EXPECT_TRUE(options.workload_flags.empty());
}

TEST(Options, TakesOursAndLeavesGoogleBenchmarksInOrder) {
  Args args({"--benchmark_filter=BF16/Wgrad", "--verify", "--l2_flush=false", "--model=llama3-8b",
             "--benchmark_repetitions=5", "--gated_mlp", "--gpu_warmup=0.5", "--warmup_runs=7",
             "--autotune=1", "--profile=true", "--shapes=1x2x3", "--emulate"});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_TRUE(options.verify);
  EXPECT_FALSE(options.l2_flush);
  EXPECT_TRUE(options.autotune);
  EXPECT_TRUE(options.profile);
  EXPECT_TRUE(options.emulate);
  EXPECT_EQ(options.warmup.min_s, 0.5);
  EXPECT_EQ(options.warmup_runs, 7);
  EXPECT_EQ(options.workload_flags.at("model"), "llama3-8b");
  EXPECT_EQ(options.workload_flags.at("gated_mlp"), "true");
  EXPECT_EQ(options.workload_flags.at("shapes"), "1x2x3");
  EXPECT_EQ(args.remaining(), (std::vector<std::string>{"--benchmark_filter=BF16/Wgrad",
                                                        "--benchmark_repetitions=5"}));
  EXPECT_EQ(args.pointers[args.argc], nullptr);
}

TEST(Options, UnknownFlagsAreLeftForGoogleBenchmarkToReport) {
  Args args({"--no_such_flag=1", "positional"});
  parse_options(&args.argc, args.pointers.data());
  EXPECT_EQ(args.remaining(), (std::vector<std::string>{"--no_such_flag=1", "positional"}));
}

std::string refusal(std::vector<std::string> flags) {
  Args args(std::move(flags));
  try {
    parse_options(&args.argc, args.pointers.data());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

TEST(Options, RefusesBadValuesNamingTheFlag) {
  EXPECT_THAT(refusal({"--verify=yes"}), HasSubstr("--verify=yes"));
  EXPECT_THAT(refusal({"--l2_flush="}), HasSubstr("--l2_flush"));
  EXPECT_THAT(refusal({"--gpu_warmup=-1"}), HasSubstr("--gpu_warmup=-1"));
  EXPECT_THAT(refusal({"--gpu_warmup=3s"}), HasSubstr("--gpu_warmup=3s"));
  EXPECT_THAT(refusal({"--gpu_warmup=nan"}), HasSubstr("--gpu_warmup"));
  EXPECT_THAT(refusal({"--gpu_warmup"}), HasSubstr("--gpu_warmup"));
  EXPECT_THAT(refusal({"--warmup_runs=2.5"}), HasSubstr("--warmup_runs=2.5"));
  EXPECT_THAT(refusal({"--warmup_runs=-3"}), HasSubstr("--warmup_runs=-3"));
}

TEST(Options, DetectsListingOnly) {
  Args listing({"--benchmark_list_tests"});
  EXPECT_TRUE(lists_tests_only(listing.argc, listing.pointers.data()));
  Args listing_true({"--benchmark_list_tests=true"});
  EXPECT_TRUE(lists_tests_only(listing_true.argc, listing_true.pointers.data()));
  Args not_listing({"--benchmark_list_tests=false", "--benchmark_filter=x"});
  EXPECT_FALSE(lists_tests_only(not_listing.argc, not_listing.pointers.data()));
}

}  // namespace
}  // namespace gemmscope
