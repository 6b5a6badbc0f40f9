#pragma once
// gemmscope's own command-line flags. They are taken out of argv before Google Benchmark sees
// it, so every --benchmark_* flag keeps working and anything unknown is still reported.

#include <string>

#include "shapes/workload.h"

namespace gemmscope {

struct BenchOptions {
  bool help = false;
  bool list_models = false;
  bool verify = false;            // compare each case against the reference GEMM first
  bool autotune = false;          // time cuBLASLt's top candidates, keep the fastest
  bool l2_flush = true;           // flush L2 before every timed iteration
  bool emulate = false;           // MXFP8/NVFP4 without their tensor cores: emulated GEMM
  bool profile = false;           // cudaProfilerStart/Stop around the timed loops
  double gpu_warmup_seconds = 3;  // busy GEMMs before the first case, to settle clocks
  int warmup_runs = 3;            // untimed runs of a case before its timed loop
  FlagValues workload_flags;      // shapes/'s flags (--model, --hidden_size, --shapes, ...)
};

// Parses and removes gemmscope's flags from argv ("--name=value"; booleans also as "--name").
// Throws std::invalid_argument naming the flag for a bad value.
BenchOptions parse_options(int* argc, char** argv);

// Whether Google Benchmark was asked only to list the cases (--benchmark_list_tests), which
// must work on a machine without a GPU.
bool lists_tests_only(int argc, char** argv);

// The --help text for gemmscope's flags (Google Benchmark's own follow it).
std::string usage_text();

}  // namespace gemmscope
