#include "bench/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmscope {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// The providers of kernels/gemm_provider.h's lists, by name.
const GemmProvider* dense(const char* name) {
  return find_provider(dense_providers(), name);
}
const GemmProvider* grouped(const char* name) {
  return find_provider(grouped_providers(), name);
}

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

TEST(Options, TimingDefaults) {
  Args args({});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_TRUE(options.timing.steady_state);
  EXPECT_EQ(options.timing.max_settle_s, 5.0);
  EXPECT_EQ(options.timing.sampling.max_noise_pct, 0.5);
  EXPECT_EQ(options.timing.sampling.min_samples, 10);
  EXPECT_EQ(options.timing.sampling.min_time_s, 1.0);
  EXPECT_EQ(options.timing.sampling.min_time_capped_s, 4.0);
  EXPECT_EQ(options.timing.sampling.max_time_s, 8.0);
  EXPECT_TRUE(options.timing.kernel_timer);
  EXPECT_FALSE(options.timing.gpc_clock);  // a diagnostic: it costs the GEMMs time
  EXPECT_FALSE(options.list_kernels);
  EXPECT_EQ(options.timeline_path, "");
  EXPECT_EQ(options.shard_index, 0);
  EXPECT_EQ(options.shard_count, 1);
  EXPECT_EQ(options.warmup.max_s, 60.0);
}

TEST(Options, TimingFlagsParse) {
  Args args({"--steady_state=off", "--max_settle=2.5", "--max_noise=1.5", "--min_samples=30",
             "--min_time=2", "--min_time_capped=6", "--max_time=20", "--kernel_timer=on",
             "--list_kernels", "--timeline=/tmp/run.csv", "--shard=3/4", "--gpu_warmup=10",
             "--max_warmup=0", "--benchmark_min_time=0.5"});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_FALSE(options.timing.steady_state);
  EXPECT_EQ(options.timing.max_settle_s, 2.5);
  EXPECT_EQ(options.timing.sampling.max_noise_pct, 1.5);
  EXPECT_EQ(options.timing.sampling.min_samples, 30);
  EXPECT_EQ(options.timing.sampling.min_time_s, 2.0);
  EXPECT_EQ(options.timing.sampling.min_time_capped_s, 6.0);
  EXPECT_EQ(options.timing.sampling.max_time_s, 20.0);
  EXPECT_TRUE(options.timing.kernel_timer);
  EXPECT_TRUE(options.list_kernels);
  EXPECT_EQ(options.timeline_path, "/tmp/run.csv");
  EXPECT_EQ(options.shard_index, 3);
  EXPECT_EQ(options.shard_count, 4);
  EXPECT_EQ(options.warmup.min_s, 10.0);
  EXPECT_EQ(options.warmup.max_s, 0.0);
  EXPECT_EQ(args.remaining(), (std::vector<std::string>{"--benchmark_min_time=0.5"}));
}

TEST(Options, BooleanTimingFlagsTakeOnAndOff) {
  Args args({"--steady_state=on", "--kernel_timer=off", "--list_kernels=off", "--gpc_clock"});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_TRUE(options.timing.steady_state);
  EXPECT_FALSE(options.timing.kernel_timer);
  EXPECT_TRUE(options.timing.gpc_clock);
  EXPECT_FALSE(options.list_kernels);
}

TEST(Options, ProfileTurnsOffWhatAProfilerWouldSeeOrServe) {
  Args args({"--profile", "--gpc_clock=on"});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_TRUE(options.profile);
  EXPECT_FALSE(options.timing.steady_state);  // settling would be profiled too
  EXPECT_FALSE(options.timing.kernel_timer);  // CUPTI serves one client: the profiler
  EXPECT_FALSE(options.timing.gpc_clock);
}

TEST(Options, EdgeValuesAccepted) {
  Args args({"--min_samples=0", "--max_noise=100", "--min_time=8", "--min_time_capped=8",
             "--shard=0/4096", "--max_settle=0"});
  const BenchOptions options = parse_options(&args.argc, args.pointers.data());
  EXPECT_EQ(options.timing.sampling.min_samples, 1);  // at least one sample
  EXPECT_EQ(options.timing.sampling.max_noise_pct, 100.0);
  EXPECT_EQ(options.timing.sampling.min_time_s, 8.0);  // equal to --max_time is fine
  EXPECT_EQ(options.timing.sampling.min_time_capped_s, 8.0);
  EXPECT_EQ(options.shard_count, 4096);
  EXPECT_EQ(options.timing.max_settle_s, 0.0);
}

TEST(Options, RefusesBadTimingValuesNamingTheFlag) {
  EXPECT_EQ(refusal({"--max_noise=0"}), "--max_noise=0: expected a percentage above 0 to 100");
  EXPECT_THAT(refusal({"--max_noise=100.5"}), HasSubstr("--max_noise=100.5"));
  EXPECT_THAT(refusal({"--max_noise=-1"}), HasSubstr("--max_noise=-1"));
  EXPECT_EQ(refusal({"--shard=2/2"}),
            "--shard=2/2: expected I/N with 0 <= I < N <= 4096, e.g. --shard=0/2");
  EXPECT_THAT(refusal({"--shard=a/b"}), HasSubstr("--shard=a/b: expected I/N"));
  EXPECT_THAT(refusal({"--shard=1"}), HasSubstr("--shard=1: expected I/N"));
  EXPECT_THAT(refusal({"--shard=-1/2"}), HasSubstr("--shard=-1/2"));
  EXPECT_THAT(refusal({"--shard=0/0"}), HasSubstr("--shard=0/0"));
  EXPECT_THAT(refusal({"--shard=0/4097"}), HasSubstr("--shard=0/4097"));
  EXPECT_THAT(refusal({"--shard=1/2x"}), HasSubstr("--shard=1/2x"));
  EXPECT_THAT(refusal({"--shard=/2"}), HasSubstr("--shard=/2"));
  EXPECT_EQ(refusal({"--min_time=9"}), "--min_time (9 s) is above --max_time (8 s)");
  EXPECT_EQ(refusal({"--max_time=3"}), "--min_time_capped (4 s) is above --max_time (3 s)");
  EXPECT_EQ(refusal({"--max_time=2.5", "--min_time=3"}),
            "--min_time (3 s) is above --max_time (2.5 s)");
  EXPECT_EQ(refusal({"--max_time=0"}),
            "--max_time=0: expected a number of seconds above 0 to 3600");
  EXPECT_EQ(refusal({"--list_kernels", "--kernel_timer=off"}),
            "--list_kernels needs the kernel timer (--kernel_timer=on)");
  EXPECT_EQ(refusal({"--kernel_timer=off", "--list_kernels"}),
            "--list_kernels needs the kernel timer (--kernel_timer=on)");
  EXPECT_EQ(refusal({"--timeline"}), "--timeline needs a file name: --timeline=FILE");
  EXPECT_EQ(refusal({"--timeline="}), "--timeline needs a file name: --timeline=FILE");
  EXPECT_THAT(refusal({"--steady_state=maybe"}),
              HasSubstr("--steady_state=maybe: expected true, false, on, off, 1 or 0"));
  EXPECT_THAT(refusal({"--max_settle=-1"}), HasSubstr("--max_settle=-1"));
  EXPECT_THAT(refusal({"--max_settle=3601"}), HasSubstr("--max_settle=3601"));
  EXPECT_THAT(refusal({"--min_samples=1.5"}), HasSubstr("--min_samples=1.5"));
  EXPECT_THAT(refusal({"--min_time=x"}), HasSubstr("--min_time=x"));
  EXPECT_THAT(refusal({"--min_time_capped=-2"}), HasSubstr("--min_time_capped=-2"));
  EXPECT_THAT(refusal({"--max_warmup=inf"}), HasSubstr("--max_warmup=inf"));
  EXPECT_THAT(refusal({"--kernel_timer=2"}), HasSubstr("--kernel_timer=2"));
}

// Whether check_benchmark_min_time accepts `value` as --benchmark_min_time's.
bool min_time_accepted(const std::string& value, bool iterations_allowed) {
  Args args({"--benchmark_filter=BF16", "--benchmark_min_time=" + value});
  try {
    check_benchmark_min_time(args.argc, args.pointers.data(), iterations_allowed);
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--benchmark_min_time=" + value + ": expected"));
    return false;
  }
  return true;
}

TEST(CheckBenchmarkMinTime, Seconds) {
  for (bool iterations_allowed : {false, true}) {
    EXPECT_TRUE(min_time_accepted("0.5", iterations_allowed));
    EXPECT_TRUE(min_time_accepted("2", iterations_allowed));
    for (const char* bad : {"abc", "0", "-1", "", "nan", "inf", "0.5 ", "s", "x", "1e999"})
      EXPECT_FALSE(min_time_accepted(bad, iterations_allowed)) << bad << " " << iterations_allowed;
  }
}

TEST(CheckBenchmarkMinTime, GoogleBenchmark17TakesNoUnits) {
  EXPECT_FALSE(min_time_accepted("10x", false));
  EXPECT_FALSE(min_time_accepted("0.5s", false));
}

TEST(CheckBenchmarkMinTime, GoogleBenchmark18TakesSecondsOrIterations) {
  EXPECT_TRUE(min_time_accepted("10x", true));
  EXPECT_TRUE(min_time_accepted("0.5s", true));
  EXPECT_FALSE(min_time_accepted("1.5x", true));
  EXPECT_FALSE(min_time_accepted("0x", true));
  EXPECT_FALSE(min_time_accepted("-5x", true));
  EXPECT_FALSE(min_time_accepted("10xs", true));
  EXPECT_FALSE(min_time_accepted("0s", true));
}

TEST(CheckBenchmarkMinTime, OnlyThatFlagAndTheRightMessage) {
  Args none({"--benchmark_filter=abc", "--benchmark_min_time_x=abc", "--max_time=abc"});
  EXPECT_NO_THROW(check_benchmark_min_time(none.argc, none.pointers.data(), false));
  Args no_value({"--benchmark_min_time"});
  try {
    check_benchmark_min_time(no_value.argc, no_value.pointers.data(), false);
    ADD_FAILURE() << "no std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--benchmark_min_time=true: expected a number of seconds (e.g. 0.5)");
  }
  Args bad({"--benchmark_min_time=1.5x"});
  try {
    check_benchmark_min_time(bad.argc, bad.pointers.data(), true);
    ADD_FAILURE() << "no std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--benchmark_min_time=1.5x: expected a number of seconds (0.5 or 0.5s) or of "
                 "iterations (100x)");
  }
}

TEST(Options, DetectsListingOnly) {
  Args listing({"--benchmark_list_tests"});
  EXPECT_TRUE(lists_tests_only(listing.argc, listing.pointers.data()));
  Args listing_true({"--benchmark_list_tests=true"});
  EXPECT_TRUE(lists_tests_only(listing_true.argc, listing_true.pointers.data()));
  Args not_listing({"--benchmark_list_tests=false", "--benchmark_filter=x"});
  EXPECT_FALSE(lists_tests_only(not_listing.argc, not_listing.pointers.data()));
}

TEST(Options, MicrobatchesDefaultsToOneAndTakesAWholeNumberUpToTheBound) {
  Args defaults({});
  EXPECT_EQ(parse_options(&defaults.argc, defaults.pointers.data()).microbatches, 1);
  for (const int n : {1, 8, kMaxMicrobatches}) {
    Args args({"--microbatches=" + std::to_string(n)});
    EXPECT_EQ(parse_options(&args.argc, args.pointers.data()).microbatches, n);
  }
  for (const char* value : {"--microbatches=0", "--microbatches=-1", "--microbatches=1025",
                            "--microbatches=x", "--microbatches=2.0", "--microbatches=",
                            "--microbatches", "--microbatches=18446744073709551617"}) {
    Args args({value});
    try {
      parse_options(&args.argc, args.pointers.data());
      ADD_FAILURE() << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--microbatches=")) << value;
      EXPECT_THAT(e.what(), HasSubstr("expected a whole number from 1 to 1024")) << value;
    }
  }
}

TEST(Options, GroupedIsAutoOrAnOrderedListOfImplementations) {
  Args defaults({});
  const BenchOptions parsed = parse_options(&defaults.argc, defaults.pointers.data());
  EXPECT_TRUE(parsed.grouped.automatic);
  EXPECT_TRUE(parsed.grouped.listed.empty());
  EXPECT_EQ(parsed.grouped.text(), "auto");
  Args automatic({"--grouped=auto"});
  EXPECT_EQ(parse_options(&automatic.argc, automatic.pointers.data()).grouped,
            ImplementationList{});
  Args args({"--grouped=cutlass,cublas,loop"});
  const ImplementationList listed = parse_options(&args.argc, args.pointers.data()).grouped;
  EXPECT_FALSE(listed.automatic);
  EXPECT_EQ(listed.listed, (std::vector<const GemmProvider*>{grouped("cutlass"), grouped("cublas"),
                                                             grouped("loop")}));
  EXPECT_EQ(listed.text(), "cutlass,cublas,loop");
}

TEST(Options, GroupedRefusesUnknownRepeatedAndEmptyImplementations) {
  for (const char* value :
       {"--grouped=fast", "--grouped=loop,loop", "--grouped=", "--grouped", "--grouped=loop,",
        "--grouped=Loop", "--grouped=auto,loop", "--grouped=loop,auto", "--grouped=Auto"}) {
    Args args({value});
    try {
      parse_options(&args.argc, args.pointers.data());
      ADD_FAILURE() << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--grouped")) << value;
      EXPECT_THAT(e.what(),
                  HasSubstr("auto or a comma-separated list of loop, cublas, cutlass, deepgemm"))
          << value;
      EXPECT_THAT(e.what(), Not(HasSubstr("true"))) << value << ": a value never typed";
    }
  }
}

TEST(Options, ProviderIsAutoOrAnOrderedListOfProviders) {
  Args defaults({});
  EXPECT_TRUE(parse_options(&defaults.argc, defaults.pointers.data()).provider.automatic);
  Args args({"--provider=cutlass,cublaslt"});
  const ImplementationList listed = parse_options(&args.argc, args.pointers.data()).provider;
  EXPECT_FALSE(listed.automatic);
  EXPECT_EQ(listed.listed, (std::vector<const GemmProvider*>{dense("cutlass"), dense("cublaslt")}));
  EXPECT_EQ(listed.text(), "cutlass,cublaslt");
  Args one({"--provider=cublaslt"});
  EXPECT_EQ(parse_options(&one.argc, one.pointers.data()).provider.listed,
            std::vector<const GemmProvider*>{dense("cublaslt")});
  Args deepgemm({"--provider=deepgemm,cutlass"});
  EXPECT_EQ(parse_options(&deepgemm.argc, deepgemm.pointers.data()).provider.listed,
            (std::vector<const GemmProvider*>{dense("deepgemm"), dense("cutlass")}));
}

TEST(Options, ProviderRefusesUnknownRepeatedAndEmptyProviders) {
  for (const char* value : {"--provider=cublas", "--provider=cutlass,cutlass", "--provider=",
                            "--provider", "--provider=auto,cutlass", "--provider=cuBLASLt"}) {
    Args args({value});
    try {
      parse_options(&args.argc, args.pointers.data());
      ADD_FAILURE() << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("--provider")) << value;
      EXPECT_THAT(e.what(),
                  HasSubstr("auto or a comma-separated list of cublaslt, cutlass, deepgemm"))
          << value;
      EXPECT_THAT(e.what(), Not(HasSubstr("true"))) << value << ": a value never typed";
    }
  }
}

}  // namespace
}  // namespace gemmscope
