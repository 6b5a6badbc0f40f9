// Output tests: run gemm_bench as a user would and check what they read and its exit status.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/gpu_test_support.h"
#include "tools/report/case_name.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

Result run_gemm_bench(const std::string& arguments) {
  const std::string command = std::string(GEMM_BENCH_PATH) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return {-1, "popen failed"};
  std::string output;
  char buffer[4096];
  size_t read;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, read);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    // Google Benchmark 1.7 from Debian warns that it is a debug build; that is not a case.
    if (!line.empty() && line.rfind("***WARNING***", 0) != 0)
      result.push_back(line);
  }
  return result;
}

TEST(GemmBenchCli, ListsTheTwelveBf16CasesOfTheDefaultConfig) {
  const Result r = run_gemm_bench("--benchmark_list_tests --benchmark_filter=^BF16/");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines(r.output), (std::vector<std::string>{
                                 "BF16/Fprop/qkv/native/M:15872/K:4096/N:12288/manual_time",
                                 "BF16/Fprop/attn_out/native/M:15872/K:4096/N:4096/manual_time",
                                 "BF16/Fprop/mlp_up/native/M:15872/K:4096/N:16384/manual_time",
                                 "BF16/Fprop/mlp_down/native/M:15872/K:16384/N:4096/manual_time",
                                 "BF16/Dgrad/qkv/native/M:15872/K:12288/N:4096/manual_time",
                                 "BF16/Dgrad/attn_out/native/M:15872/K:4096/N:4096/manual_time",
                                 "BF16/Dgrad/mlp_up/native/M:15872/K:16384/N:4096/manual_time",
                                 "BF16/Dgrad/mlp_down/native/M:15872/K:4096/N:16384/manual_time",
                                 "BF16/Wgrad/qkv/native/M:4096/K:15872/N:12288/manual_time",
                                 "BF16/Wgrad/attn_out/native/M:4096/K:15872/N:4096/manual_time",
                                 "BF16/Wgrad/mlp_up/native/M:4096/K:15872/N:16384/manual_time",
                                 "BF16/Wgrad/mlp_down/native/M:16384/K:15872/N:4096/manual_time",
                             }));
}

TEST(GemmBenchCli, FilterSelectsExactlyOnePrecisionAndPass) {
  const Result r = run_gemm_bench("--benchmark_list_tests --benchmark_filter=BF16/Wgrad");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> names = lines(r.output);
  ASSERT_EQ(names.size(), 4u) << r.output;
  for (const std::string& name : names)
    EXPECT_EQ(name.rfind("BF16/Wgrad/", 0), 0u) << name;
}

TEST(GemmBenchCli, ShapesModeNamesEachGemmByPosition) {
  const Result r = run_gemm_bench(
      "--benchmark_list_tests --benchmark_filter=^BF16/ --shapes=128x256x512,8192x8192x8192");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines(r.output),
            (std::vector<std::string>{"BF16/Fprop/gemm0/native/M:128/K:256/N:512/manual_time",
                                      "BF16/Fprop/gemm1/native/M:8192/K:8192/N:8192/manual_time"}));
}

TEST(GemmBenchCli, PresetAndOverrideChangeTheShapes) {
  const Result r = run_gemm_bench(
      "--benchmark_list_tests --benchmark_filter=^BF16/Fprop/qkv --model=llama3-8b "
      "--micro_batch_size=2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 2 x 8192 tokens; QKV out (32 + 2 * 8) * 128 = 6144.
  EXPECT_EQ(lines(r.output),
            (std::vector<std::string>{"BF16/Fprop/qkv/native/M:16384/K:4096/N:6144/manual_time"}));
}

TEST(GemmBenchCli, BadValuesExitNonZeroNamingTheFlag) {
  for (const char* args :
       {"--hidden_size=abc", "--num_attention_heads=30", "--shapes=1x2x3 --hidden_size=64",
        "--model=nope", "--shapes=1x2", "--verify=maybe", "--tensor_parallel=3"}) {
    const Result r = run_gemm_bench(std::string("--benchmark_list_tests ") + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    const std::string flag = std::string(args).substr(0, std::string(args).find('='));
    EXPECT_THAT(r.output, HasSubstr(flag)) << args;
  }
}

TEST(GemmBenchCli, UnknownFlagIsRefused) {
  const Result r = run_gemm_bench("--benchmark_list_tests --no_such_flag=1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("no_such_flag"));
}

TEST(GemmBenchCli, ListModelsAndHelp) {
  const Result models = run_gemm_bench("--list_models");
  EXPECT_EQ(models.exit_code, 0);
  EXPECT_THAT(models.output, HasSubstr("llama3-70b"));
  const Result help = run_gemm_bench("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.output, HasSubstr("--verify"));
  EXPECT_THAT(help.output, HasSubstr("benchmark_filter"));
}

TEST(GemmBenchCli, WithoutAGpuTimingIsRefusedClearly) {
  if (gemmscope::testing::gpu_unavailable_reason().empty()) {
    GTEST_SKIP() << "a GPU is present: this test is about machines without one";
  }
  const Result r = run_gemm_bench("--benchmark_filter=BF16/Fprop/qkv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("nothing can be timed"));
}

TEST(GemmBenchCli, OnAGpuEveryCaseReportsItsClocks) {
  GEMMSCOPE_REQUIRE_GPU();
  const Result r = run_gemm_bench(
      "--shapes=1024x1024x1024 --gpu_warmup=0 --benchmark_filter=BF16 "
      "--benchmark_min_time=0.05 --benchmark_format=json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"nvml\": \"available\""));
  EXPECT_THAT(r.output, HasSubstr("\"sm_clock_mhz\": "));
  EXPECT_THAT(r.output, HasSubstr("\"sm_clock_min_mhz\": "));
}

// A/B within one run: repetitions with random interleaving. Every case gets every repetition
// and the aggregates compare.py reads, whatever order Google Benchmark shuffles them into
// (each repetition of a case is served by one steady-state run of its group).
TEST(GemmBenchCli, OnAGpuRandomInterleavingGivesEveryCaseEveryRepetition) {
  GEMMSCOPE_REQUIRE_GPU();
  const Result r = run_gemm_bench(
      "--shapes=512x1024x768,1024x512x256 '--benchmark_filter=^(BF16|FP8Current)/' "
      "--gpu_warmup=0 --max_warmup=0 --max_settle=0.5 --min_time=0.05 --min_time_capped=0.05 "
      "--max_time=0.2 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true "
      "--benchmark_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"BF16/Fprop/gemm0/native/M:512/K:1024/N:768/manual_time",
                           "FP8Current/Fprop/gemm1/prequant/M:1024/K:512/N:256/manual_time"}) {
    size_t repetitions = 0;
    for (size_t at = r.output.find(std::string("\"name\": \"") + name + "\"");
         at != std::string::npos;
         at = r.output.find(std::string("\"name\": \"") + name + "\"", at + 1)) {
      ++repetitions;
    }
    EXPECT_EQ(repetitions, 3u) << name << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(std::string("\"name\": \"") + name + "_median\""));
  }
}

// gemm_bench's case names, listed without a GPU.
std::vector<std::string> listing(const std::string& arguments) {
  const Result r = run_gemm_bench("--benchmark_list_tests " + arguments);
  EXPECT_EQ(r.exit_code, 0) << arguments << "\n" << r.output;
  return lines(r.output);
}

bool is_quantize_case(const std::string& name) {
  return name.find("/Quantize/") != std::string::npos;
}

// A case's group (the cases timed together): its precision's GEMM cases, or its precision's
// quantization cases.
std::string group_of(const std::string& name) {
  return name.substr(0, name.find('/')) + (is_quantize_case(name) ? "/Quantize" : "");
}

TEST(GemmBenchCli, ListsEveryGemmCaseBeforeEveryQuantizeCase) {
  const std::vector<std::string> all = listing("");
  ASSERT_FALSE(all.empty());
  const auto first_quantize = std::find_if(all.begin(), all.end(), is_quantize_case);
  ASSERT_NE(first_quantize, all.end());
  ASSERT_NE(first_quantize, all.begin());
  EXPECT_TRUE(std::all_of(first_quantize, all.end(), is_quantize_case));
  // The default config: 12 BF16 + 36 FP8Current (step, autocast, prequant) + 24 FP8Delayed
  // (step, autocast) + 36 FP8Block + 36 FP8Rowwise + 36 FP8RowwiseBF16Wgrad + 36 MXFP8 + 36 NVFP4
  // GEMM cases, then 27 quantization cases for each of six quantized recipes, and 8 for
  // FP8RowwiseBF16Wgrad: its own casts only, each weight's tensorwise copy alone and with the
  // rowwise one (its others are FP8Rowwise's).
  EXPECT_EQ(first_quantize - all.begin(), 252);
  EXPECT_EQ(all.size(), 252u + 6 * 27 + 8);
}

// --grouped=deepgemm pads each expert's rows to 128 for its kernel: the expert quantization cases
// pad the same, so that they time the casts the GEMM cases run (skewed routing: rows of no
// alignment). Without it, FP8 pads to 16.
TEST(GemmBenchCli, ExpertQuantizeCasesPadAsTheListedGroupedProvidersNeed) {
  const std::string flags =
      "--model=qwen3-30b-a3b --expert_parallel=8 --routing=skewed "
      "--benchmark_filter=^FP8Block/Quantize/x/rowwise/G:.*/C:2048/";
  const std::vector<std::string> sixteen = listing(flags);
  const std::vector<std::string> deepgemm = listing(flags + " --grouped=deepgemm");
  ASSERT_EQ(sixteen.size(), 1u);
  ASSERT_EQ(deepgemm.size(), 1u);
  const auto rows = [](const std::string& name) {
    const size_t at = name.find("/R:") + 3;
    return std::stoll(name.substr(at, name.find('/', at) - at));
  };
  EXPECT_EQ(rows(sixteen[0]) % 16, 0) << sixteen[0];
  EXPECT_EQ(rows(deepgemm[0]) % 128, 0) << deepgemm[0];
  EXPECT_GT(rows(deepgemm[0]), rows(sixteen[0])) << "skewed routing leaves rows to pad";
}

TEST(GemmBenchCli, ShardsPartitionTheListingByGroupInRegistrationOrder) {
  const std::vector<std::string> all = listing("");
  ASSERT_FALSE(all.empty());
  // Groups in order of first appearance.
  std::vector<std::string> groups;
  for (const std::string& name : all) {
    if (std::find(groups.begin(), groups.end(), group_of(name)) == groups.end())
      groups.push_back(group_of(name));
  }
  EXPECT_EQ(groups, (std::vector<std::string>{
                        "BF16", "FP8Current", "FP8Delayed", "FP8Block", "FP8Rowwise",
                        "FP8RowwiseBF16Wgrad", "MXFP8", "NVFP4", "FP8Current/Quantize",
                        "FP8Delayed/Quantize", "FP8Block/Quantize", "FP8Rowwise/Quantize",
                        "FP8RowwiseBF16Wgrad/Quantize", "MXFP8/Quantize", "NVFP4/Quantize"}));

  std::vector<std::string> union_of_shards;
  std::set<std::string> seen;
  for (int shard = 0; shard < 3; ++shard) {
    const std::vector<std::string> names = listing("--shard=" + std::to_string(shard) + "/3");
    // Shard i: the cases of groups i, i + 3, ..., in the unsharded order.
    std::vector<std::string> expected;
    for (const std::string& name : all) {
      const size_t group = std::find(groups.begin(), groups.end(), group_of(name)) - groups.begin();
      if (group % 3 == static_cast<size_t>(shard))
        expected.push_back(name);
    }
    EXPECT_EQ(names, expected) << "shard " << shard;
    for (const std::string& name : names)
      EXPECT_TRUE(seen.insert(name).second) << name << " is in two shards";
    union_of_shards.insert(union_of_shards.end(), names.begin(), names.end());
  }
  // Groups 0, 3, 6, 9, 12: 12 + 36 + 36 + 27 + 8; 1, 4, 7, 10, 13: 36 + 36 + 36 + 27 + 27; 2, 5,
  // 8, 11, 14: 24 + 36 + 27 + 27 + 27.
  EXPECT_EQ(listing("--shard=0/3").size(), 119u);
  EXPECT_EQ(listing("--shard=1/3").size(), 162u);
  EXPECT_EQ(listing("--shard=2/3").size(), 141u);
  std::vector<std::string> sorted_all = all;
  std::sort(sorted_all.begin(), sorted_all.end());
  std::sort(union_of_shards.begin(), union_of_shards.end());
  EXPECT_EQ(union_of_shards, sorted_all);
  // One shard of one is the whole listing.
  EXPECT_EQ(listing("--shard=0/1"), all);
}

TEST(GemmBenchCli, DeepSeekV3ListsDenseMlaAndExpertCasesOfEveryPrecision) {
  const Result r = run_gemm_bench("--benchmark_list_tests --model=deepseek-v3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string listing = r.output;
  for (const char* precision :
       {"BF16/", "FP8Current/", "FP8Delayed/", "FP8Block/", "MXFP8/", "NVFP4/"}) {
    SCOPED_TRACE(precision);
    // The three dense layers' MLP, the MLA projections, the shared and the routed experts
    // (32 of 256 on each of 8 expert-parallel ranks, 4096 tokens x top-8 routed to a rank).
    EXPECT_THAT(listing, HasSubstr(std::string(precision) + "Fprop/mlp_up/"));
    EXPECT_THAT(listing, HasSubstr(std::string(precision) + "Dgrad/kv_b/"));
    EXPECT_THAT(listing, HasSubstr(std::string(precision) + "Fprop/q_a/"));
    EXPECT_THAT(listing, HasSubstr(std::string(precision) + "Wgrad/shared_down/"));
    EXPECT_THAT(listing, HasSubstr(std::string(precision) + "Wgrad/expert_up/"));
  }
  EXPECT_THAT(listing, HasSubstr("BF16/Fprop/expert_up/native/G:32/M:32768/K:7168/N:4096/"));
  EXPECT_THAT(listing,
              HasSubstr("FP8Block/Wgrad/expert_down/prequant/G:32/M:2048/K:32768/N:7168/"));
  EXPECT_THAT(listing, HasSubstr("BF16/Fprop/kv_a/native/M:4096/K:7168/N:576/"));
  EXPECT_THAT(listing, Not(HasSubstr("/qkv/")));
  // The routed tokens' quantization: every expert of the rank in one case, rows = routed rows
  // (already multiples of 16: nothing to pad); the experts' stacked weights likewise.
  EXPECT_THAT(listing, HasSubstr("FP8Current/Quantize/x/rowwise/G:32/R:32768/C:7168/"));
  EXPECT_THAT(listing, HasSubstr("FP8Block/Quantize/w/columnwise/G:32/R:131072/C:7168/"));
}

TEST(GemmBenchCli, ExpertParallelismGivesEachRankItsGroups) {
  const Result r = run_gemm_bench(
      "--benchmark_list_tests --model=qwen3-30b-a3b --expert_parallel=8 "
      "--benchmark_filter=^BF16/.*/expert_");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 128 experts over 8 ranks: 16 on each; each rank receives its 4096 tokens x top-8 rows.
  EXPECT_EQ(lines(r.output),
            (std::vector<std::string>{
                "BF16/Fprop/expert_up/native/G:16/M:32768/K:2048/N:1536/manual_time",
                "BF16/Fprop/expert_down/native/G:16/M:32768/K:768/N:2048/manual_time",
                "BF16/Dgrad/expert_up/native/G:16/M:32768/K:1536/N:2048/manual_time",
                "BF16/Dgrad/expert_down/native/G:16/M:32768/K:2048/N:768/manual_time",
                "BF16/Wgrad/expert_up/native/G:16/M:2048/K:32768/N:1536/manual_time",
                "BF16/Wgrad/expert_down/native/G:16/M:768/K:32768/N:2048/manual_time",
            }));
}

TEST(GemmBenchCli, SkewedRoutingTimesTheMostLoadedRank) {
  const auto expert_rows = [](const std::string& routing) {
    const Result r = run_gemm_bench(
        "--benchmark_list_tests --model=qwen3-30b-a3b "
        "--expert_parallel=8 --benchmark_filter=^BF16/Fprop/expert_up " +
        routing);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const size_t m = r.output.find("/M:");
    return std::stol(r.output.substr(m + 3));
  };
  EXPECT_EQ(expert_rows("--routing=balanced"), 32768);
  EXPECT_GT(expert_rows("--routing=skewed"), 32768);
  EXPECT_GT(expert_rows("--routing=skewed:2"), expert_rows("--routing=skewed:0.5"));
}

// gemm_bench writes the names, gemm_report reads them: every case of every preset (and of a
// skewed, expert-parallel run) must parse, grouped ones with the G gemm_bench wrote.
TEST(GemmBenchCli, EveryListedNameParsesInTheReport) {
  using gemmscope::report::ParsedName;
  struct Run {
    std::string flags;
    bool moe;
  };
  const std::vector<Run> runs = {
      {"--model=te-tutorial", false},
      {"--model=llama3.1-405b", false},
      {"--model=mixtral-8x7b", true},
      {"--model=qwen3-30b-a3b", true},
      {"--model=qwen3-235b-a22b --expert_parallel=2 --routing=skewed:2", true},
      {"--model=deepseek-v3", true},
      {"--model=gpt-oss-120b --expert_parallel=4 --routing=skewed", true},
  };
  for (const Run& run : runs) {
    const Result r = run_gemm_bench("--benchmark_list_tests " + run.flags);
    ASSERT_EQ(r.exit_code, 0) << run.flags << "\n" << r.output;
    int grouped = 0;
    for (const std::string& name : lines(r.output)) {
      const ParsedName parsed = gemmscope::report::parse_case_name(name);
      ASSERT_NE(parsed.kind, ParsedName::Kind::kUnparseable)
          << run.flags << ": " << name << ": " << parsed.problem;
      if (parsed.kind != ParsedName::Kind::kGemm)
        continue;
      const size_t g = name.find("/G:");
      if (g == std::string::npos) {
        EXPECT_FALSE(parsed.gemm.groups.has_value()) << name;
        continue;
      }
      ASSERT_TRUE(parsed.gemm.groups.has_value()) << name;
      EXPECT_EQ(*parsed.gemm.groups, std::stol(name.substr(g + 3))) << name;
      ++grouped;
    }
    EXPECT_EQ(grouped > 0, run.moe) << run.flags;
  }
}

// The bad-flag catalogue: one row per command line, the exit status and what the message must
// say. Every row lists cases only (--benchmark_list_tests), so none needs a GPU.
struct BadFlagRow {
  const char* args;
  int exit_code;
  const char* says;
};

void PrintTo(const BadFlagRow& row, std::ostream* out) {
  *out << row.args;
}

constexpr BadFlagRow kBadFlagRows[] = {
    {"--hidden_size=", 2, "--hidden_size=: the value is empty"},
    {"--hidden_size", 2, "--hidden_size=true: the value is not a decimal integer"},
    {"--hidden_size=-5", 2, "--hidden_size=-5: the value is not positive"},
    {"--hidden_size=0", 2, "--hidden_size=0: the value is not positive"},
    {"--hidden_size=1e3", 2, "--hidden_size=1e3: the value is not a decimal integer"},
    {"--hidden_size=4096.5", 2, "--hidden_size=4096.5: the value is not a decimal integer"},
    {"--hidden_size=99999999999999999999", 2, "exceeds the maximum 2147483647"},
    {"--intermediate_size=x", 2, "--intermediate_size=x: the value is not a decimal integer"},
    {"--micro_batch_size=0", 2, "--micro_batch_size=0: the value is not positive"},
    {"--sequence_length=abc", 2, "--sequence_length=abc: the value is not a decimal integer"},
    {"--num_hidden_layers=0", 2, "--num_hidden_layers=0: the value is not positive"},
    {"--tensor_parallel=0", 2, "--tensor_parallel=0: the value is not positive"},
    {"--num_key_value_heads=5", 2, "--num_key_value_heads=5 must divide --num_attention_heads=32"},
    {"--num_key_value_heads=64", 2,
     "--num_key_value_heads=64 must divide --num_attention_heads=32"},
    {"--gated_mlp=maybe", 2, "--gated_mlp=maybe: expected true, false, on, off, 1 or 0"},
    {"--model=", 2, "--model= is not a known model"},
    {"--model=LLAMA3-8B", 2, "known models: te-tutorial, llama3-8b, llama3-70b"},
    {"--shapes=", 2, "--shapes='' lists no GEMM"},
    {"--shapes=1x2x3x4", 2, "'1x2x3x4' has 4 dimensions, not three"},
    {"--shapes=0x1x1", 2, "M='0' is not positive"},
    {"--shapes=-1x2x3", 2, "M='-1' is not positive"},
    {"--shapes=1X2X3", 2, "use a lowercase 'x'"},
    {"--shapes=1x2x3,,", 2, "item 1 (counting from 0) is empty"},
    {"--shapes=2147483648x1x1", 2, "M='2147483648' exceeds the maximum 2147483647"},
    {"--shapes=1x2x3 --model=llama3-8b", 2, "--shapes cannot be combined with model flags"},
    {"--warmup_runs=-1", 2, "--warmup_runs=-1: expected a whole number from 0 to 1000"},
    {"--gpu_warmup=abc", 2, "--gpu_warmup=abc: expected a number of seconds from 0 to 3600"},
    {"--l2_flush=maybe", 2, "--l2_flush=maybe: expected true, false, on, off, 1 or 0"},
    {"--autotune=2", 2, "--autotune=2: expected true, false, on, off, 1 or 0"},
    {"--emulate=yes", 2, "--emulate=yes: expected true, false, on, off, 1 or 0"},
    {"--list_models=3", 2, "--list_models=3: expected true, false, on, off, 1 or 0"},
    {"--benchmark_min_time=abc", 2, "--benchmark_min_time"},
    // gemmscope's timing flags.
    {"--steady_state=maybe", 2, "--steady_state=maybe: expected true, false, on, off, 1 or 0"},
    {"--max_settle=-1", 2, "--max_settle=-1: expected a number of seconds from 0 to 3600"},
    {"--max_noise=0", 2, "--max_noise=0: expected a percentage above 0 to 100"},
    {"--max_noise=101", 2, "--max_noise=101: expected a percentage above 0 to 100"},
    {"--min_samples=1.5", 2, "--min_samples=1.5: expected a whole number from 0 to 1000000"},
    {"--min_time=9", 2, "--min_time (9 s) is above --max_time (8 s)"},
    {"--min_time_capped=10 --max_time=5", 2, "--min_time_capped (10 s) is above --max_time (5 s)"},
    {"--max_time=0", 2, "--max_time=0: expected a number of seconds above 0 to 3600"},
    {"--kernel_timer=maybe", 2, "--kernel_timer=maybe: expected true, false, on, off, 1 or 0"},
    {"--list_kernels --kernel_timer=off", 2,
     "--list_kernels needs the kernel timer (--kernel_timer=on)"},
    {"--timeline", 2, "--timeline needs a file name: --timeline=FILE"},
    {"--timeline=", 2, "--timeline needs a file name: --timeline=FILE"},
    {"--shard=2/2", 2, "--shard=2/2: expected I/N with 0 <= I < N <= 4096"},
    {"--shard=a/b", 2, "--shard=a/b: expected I/N with 0 <= I < N <= 4096"},
    {"--shard=1", 2, "--shard=1: expected I/N with 0 <= I < N <= 4096"},
    {"--max_warmup=x", 2, "--max_warmup=x: expected a number of seconds from 0 to 3600"},
    {"--benchmark_min_time=0", 2, "--benchmark_min_time=0: expected a number of seconds"},
    {"--benchmark_min_time=-1", 2, "--benchmark_min_time=-1: expected a number of seconds"},
    {"--benchmark_filter=[", 2, "no case matched the filter"},
    // Gradient accumulation: step cases' weight quantization once per N microbatches.
    {"--microbatches=0", 2, "--microbatches=0: expected a whole number from 1 to 1024"},
    {"--microbatches=-8", 2, "--microbatches=-8: expected a whole number from 1 to 1024"},
    {"--microbatches=eight", 2, "--microbatches=eight: expected a whole number from 1 to 1024"},
    {"--microbatches=8.5", 2, "--microbatches=8.5: expected a whole number from 1 to 1024"},
    {"--microbatches=", 2, "--microbatches=: expected a whole number from 1 to 1024"},
    {"--microbatches", 2, "--microbatches=true: expected a whole number from 1 to 1024"},
    {"--microbatches=1025", 2, "--microbatches=1025: expected a whole number from 1 to 1024"},
    {"--microbatches=99999999999999999999", 2,
     "--microbatches=99999999999999999999: expected a whole number from 1 to 1024"},
    // Mixture of experts.
    {"--grouped=fast", 2, "--grouped=fast: unknown implementation 'fast'"},
    {"--grouped=loop,loop", 2, "--grouped=loop,loop: 'loop' is listed twice"},
    {"--routing=skewed", 2, "the model (te-tutorial) is dense: set --num_experts too"},
    {"--model=qwen3-30b-a3b --routing=zipf", 2, "--routing=zipf: expected balanced, skewed"},
    {"--model=qwen3-30b-a3b --routing=skewed:0", 2, "--routing=skewed:0: expected balanced"},
    {"--model=qwen3-30b-a3b --expert_parallel=3", 2,
     "--expert_parallel=3 must divide --num_experts=128"},
    {"--model=qwen3-30b-a3b --num_experts_per_token=200", 2,
     "--num_experts_per_token=200 must be from 1 to --num_experts=128"},
    {"--model=deepseek-v3 --first_k_dense=99", 2, "--first_k_dense=99 must be from 0 to 60"},
    {"--model=mixtral-8x7b --head_dim=0", 2, "--head_dim=0: the value is not positive"},
    {"positional", 2, "unrecognized command-line flag: positional"},
    {"-x", 2, "unrecognized command-line flag: -x"},
    // Google Benchmark checks the output file when it opens it; gemm_bench does not check it
    // earlier (see docs/hardening.md).
    {"--benchmark_out=/nonexistent/dir/run.json", 1,
     "invalid file name: '/nonexistent/dir/run.json'"},
};

class GemmBenchBadFlag : public ::testing::TestWithParam<BadFlagRow> {};

TEST_P(GemmBenchBadFlag, ExitsAsTheRowSaysAndNamesTheProblem) {
  const BadFlagRow& row = GetParam();
  const Result r = run_gemm_bench(std::string("--benchmark_list_tests ") + row.args);
  EXPECT_EQ(r.exit_code, row.exit_code) << r.output;
  EXPECT_THAT(r.output, HasSubstr(row.says));
}

INSTANTIATE_TEST_SUITE_P(Catalogue, GemmBenchBadFlag, ::testing::ValuesIn(kBadFlagRows));

}  // namespace
