// gemm_bench: gemmscope's flags first, then Google Benchmark's. See usage_text().

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include "bench/bench_session.h"
#include "bench/options.h"
#include "bench/registration.h"
#include "bench/run_context_writer.h"
#include "shapes/presets.h"

namespace {

// The --benchmark_min_time that makes Google Benchmark call a case exactly once: one
// iteration in 1.8 ("1x"); in 1.7, which takes only seconds, any time the first iteration
// exceeds.
#if GEMMSCOPE_HAVE_SKIP_WITH_MESSAGE
#define GEMMSCOPE_ONE_ITERATION_MIN_TIME "--benchmark_min_time=1x"
#else
#define GEMMSCOPE_ONE_ITERATION_MIN_TIME "--benchmark_min_time=0.000000001"
#endif

constexpr int kExitBadUsage = 2;
constexpr int kExitNoGpu = 1;

// Google Benchmark prints its own flags' help and exits when it sees --help.
[[noreturn]] void print_help_and_exit(char* program) {
  std::fputs(gemmscope::usage_text().c_str(), stdout);
  std::fputs("\nGoogle Benchmark's flags:\n", stdout);
  std::fflush(stdout);
  char help[] = "--help";
  char* args[] = {program, help, nullptr};
  int count = 2;
  benchmark::Initialize(&count, args);
  std::exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gemmscope;
  BenchOptions options;
  Workload workload;
  try {
    options = parse_options(&argc, argv);
    if (options.help)
      print_help_and_exit(argv[0]);
    if (options.list_models) {
      std::fputs(list_models_text().c_str(), stdout);
      return 0;
    }
    workload = make_workload(options.workload_flags);
    check_benchmark_min_time(argc, argv, GEMMSCOPE_HAVE_SKIP_WITH_MESSAGE);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gemm_bench: %s\n(see gemm_bench --help)\n", e.what());
    return kExitBadUsage;
  }

  const bool listing_only = lists_tests_only(argc, argv);
  // Without --benchmark_min_time, Google Benchmark calls each case once per repetition and
  // gemmscope's stopping rule decides how many samples that one call takes (its time is their
  // mean). With it, Google Benchmark's own loop decides, one sample per iteration.
  options.benchmark_drives_iterations = has_benchmark_flag(argc, argv, "benchmark_min_time");
  std::vector<char*> arguments(argv, argv + argc);
  char one_iteration[] = GEMMSCOPE_ONE_ITERATION_MIN_TIME;
  if (!options.benchmark_drives_iterations)
    arguments.push_back(one_iteration);
  arguments.push_back(nullptr);
  argc = static_cast<int>(arguments.size()) - 1;
  argv = arguments.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return kExitBadUsage;

  const std::vector<std::unique_ptr<Recipe>> recipes = all_recipes({options.emulate});
  BenchSession session(options);
  register_cases(workload, recipes, session, options.shard_index, options.shard_count);

  if (!listing_only) {
    const std::string no_gpu = gpu_unavailable_reason();
    if (!no_gpu.empty()) {
      std::fprintf(stderr,
                   "gemm_bench: %s: nothing can be timed. (--benchmark_list_tests works without "
                   "a GPU.)\n",
                   no_gpu.c_str());
      return kExitNoGpu;
    }
    try {
      session.start_gpu();
      add_run_context(session.device(), session.measurements(), session.clock_monitor(),
                      session.kernel_timer(), session.gpc_clock_sampler(), workload, options);
      add_warmup_context(session.warm_up());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gemm_bench: GPU set-up failed: %s\n", e.what());
      return kExitNoGpu;
    }
  }

  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "gemm_bench: no case matched the filter (see --benchmark_list_tests)\n");
    return kExitBadUsage;
  }
  return 0;
}
