#pragma once
// gemmscope's own command-line flags. They are taken out of argv before Google Benchmark sees
// it, so every --benchmark_* flag keeps working and anything unknown is still reported.

#include <string>
#include <vector>

#include "bench/implementation_list.h"
#include "bench/timing/gpu_warmup.h"
#include "bench/timing/steady_state_run.h"
#include "kernels/gemm_provider.h"
#include "shapes/workload.h"

namespace gemmscope {

// --microbatches' upper bound: a step case's sample is that many microbatches (TimedWork::
// period), so a larger N makes each sample longer; and past a few hundred the weight's share of
// a microbatch is well below the run-to-run spread.
inline constexpr int kMaxMicrobatches = 1024;

struct BenchOptions {
  bool help = false;
  bool list_models = false;
  bool verify = false;    // compare each case against the reference GEMM first
  bool autotune = false;  // time cuBLASLt's top candidates, keep the fastest
  bool l2_flush = true;   // flush L2 before every timed iteration
  bool emulate = false;   // MXFP8/NVFP4 without their tensor cores: emulated GEMM
  bool profile = false;   // cudaProfilerStart/Stop around the timed loops
  // --grouped and --provider: who runs expert (grouped) and dense GEMM cases.
  ImplementationList grouped;
  ImplementationList provider;
  WarmupSettings warmup;      // busy GEMMs before the first case (bench/timing/gpu_warmup.h)
  int warmup_runs = 3;        // untimed runs of a case when it is prepared
  int microbatches = 1;       // of an optimizer step: a step case casts W once per this many
  TimingSettings timing;      // steady state, the stopping rule, the kernel timer
  bool list_kernels = false;  // print each case's kernels (from the kernel timer)
  std::string timeline_path;  // --timeline=FILE: NVML readings and samples as CSV
  int shard_index = 0;        // --shard=I/N: register only cases I, I+N, I+2N, ...
  int shard_count = 1;
  FlagValues workload_flags;  // shapes/'s flags (--model, --hidden_size, --shapes, ...)
  // Not a flag of ours: set when --benchmark_min_time was given, so that Google Benchmark's
  // loop, not the stopping rule, decides how long each case is sampled.
  bool benchmark_drives_iterations = false;
};

// Parses and removes gemmscope's flags from argv ("--name=value"; booleans also as "--name").
// Throws std::invalid_argument naming the flag for a bad value.
BenchOptions parse_options(int* argc, char** argv);

// Whether Google Benchmark was asked only to list the cases (--benchmark_list_tests), which
// must work on a machine without a GPU.
bool lists_tests_only(int argc, char** argv);

// Whether argv has Google Benchmark flag --`name` (with or without a value).
bool has_benchmark_flag(int argc, char** argv, const std::string& name);

// gemm_bench reads --benchmark_min_time itself (it decides who drives the sampling), so it
// checks the value up front: seconds ("0.5", or "0.5s" from Google Benchmark 1.8 on) or, from
// 1.8 on, iterations ("100x"). Throws std::invalid_argument naming the flag otherwise.
void check_benchmark_min_time(int argc, char** argv, bool iterations_allowed);

// The --help text for gemmscope's flags (Google Benchmark's own follow it).
std::string usage_text();

}  // namespace gemmscope
