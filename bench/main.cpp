// gemm_bench: gemmscope's flags first, then Google Benchmark's. See usage_text().

#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <vector>

#include "bench/bench_session.h"
#include "bench/gpu_warmup.h"
#include "bench/options.h"
#include "bench/registration.h"
#include "bench/run_context.h"
#include "shapes/presets.h"

namespace {

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
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gemm_bench: %s\n(see gemm_bench --help)\n", e.what());
    return kExitBadUsage;
  }

  const bool listing_only = lists_tests_only(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return kExitBadUsage;

  const std::vector<std::unique_ptr<Recipe>> recipes = all_recipes({options.emulate});
  BenchSession session(options);
  register_cases(workload, recipes, session);

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
      add_run_context(session.device(), session.measurements(), session.clock_monitor(), workload,
                      options);
      warm_up_gpu(options.gpu_warmup_seconds, session.cublas(), session.stream());
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
