#include "bench/options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace gemmscope {
namespace {

struct FlagArgument {
  std::string name;
  std::string value;
  bool has_value = false;
};

// "--name=value" or "--name"; anything else is not a flag of ours.
bool split_flag(std::string_view arg, FlagArgument* out) {
  if (arg.size() < 3 || arg.substr(0, 2) != "--")
    return false;
  arg.remove_prefix(2);
  const size_t eq = arg.find('=');
  out->name = std::string(arg.substr(0, eq));
  out->has_value = eq != std::string_view::npos;
  out->value = out->has_value ? std::string(arg.substr(eq + 1)) : "true";
  return true;
}

bool parse_bool(const FlagArgument& flag) {
  if (flag.value == "true" || flag.value == "1")
    return true;
  if (flag.value == "false" || flag.value == "0")
    return false;
  throw std::invalid_argument("--" + flag.name + "=" + flag.value +
                              ": expected true, false, 1 or 0");
}

double parse_seconds(const FlagArgument& flag) {
  char* end = nullptr;
  const double value = std::strtod(flag.value.c_str(), &end);
  if (!flag.has_value || flag.value.empty() || *end != '\0' || !std::isfinite(value) || value < 0 ||
      value > 3600) {
    throw std::invalid_argument("--" + flag.name + "=" + flag.value +
                                ": expected a number of seconds from 0 to 3600");
  }
  return value;
}

int parse_count(const FlagArgument& flag, int max) {
  char* end = nullptr;
  const long value = std::strtol(flag.value.c_str(), &end, 10);
  if (!flag.has_value || flag.value.empty() || *end != '\0' || value < 0 || value > max) {
    throw std::invalid_argument("--" + flag.name + "=" + flag.value +
                                ": expected a whole number from 0 to " + std::to_string(max));
  }
  return static_cast<int>(value);
}

// Applies one of gemmscope's flags; false when the name is not one of ours.
bool apply_flag(const FlagArgument& flag, BenchOptions* options) {
  const std::vector<std::string>& workload = workload_flag_names();
  if (std::find(workload.begin(), workload.end(), flag.name) != workload.end()) {
    options->workload_flags[flag.name] = flag.value;
  } else if (flag.name == "help") {
    options->help = parse_bool(flag);
  } else if (flag.name == "list_models") {
    options->list_models = parse_bool(flag);
  } else if (flag.name == "verify") {
    options->verify = parse_bool(flag);
  } else if (flag.name == "autotune") {
    options->autotune = parse_bool(flag);
  } else if (flag.name == "l2_flush") {
    options->l2_flush = parse_bool(flag);
  } else if (flag.name == "emulate") {
    options->emulate = parse_bool(flag);
  } else if (flag.name == "profile") {
    options->profile = parse_bool(flag);
  } else if (flag.name == "gpu_warmup") {
    options->gpu_warmup_seconds = parse_seconds(flag);
  } else if (flag.name == "warmup_runs") {
    options->warmup_runs = parse_count(flag, 1000);
  } else {
    return false;
  }
  return true;
}

}  // namespace

BenchOptions parse_options(int* argc, char** argv) {
  BenchOptions options;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    FlagArgument flag;
    if (split_flag(argv[i], &flag) && apply_flag(flag, &options))
      continue;
    argv[kept++] = argv[i];
  }
  *argc = kept;
  argv[kept] = nullptr;
  return options;
}

bool lists_tests_only(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    FlagArgument flag;
    if (split_flag(argv[i], &flag) && flag.name == "benchmark_list_tests") {
      return flag.value == "true" || flag.value == "1";
    }
  }
  return false;
}

std::string usage_text() {
  return R"(gemm_bench: the linear-layer GEMMs of one transformer training step, per precision,
timed with CUDA events. Google Benchmark's flags (--benchmark_filter, --benchmark_out, ...) work
as usual; gemmscope's own flags are:

What to time (model mode, the default; dimension flags override the preset's values):
  --model=NAME               preset to start from (default te-tutorial; see --list_models)
  --list_models              print the presets and exit
  --hidden_size=N --intermediate_size=N --num_attention_heads=N --num_key_value_heads=N
  --num_hidden_layers=N --micro_batch_size=N --sequence_length=N --tensor_parallel=N
  --gated_mlp[=true|false]   SwiGLU-style MLP: the up projection is 2 x intermediate wide
Or a list of GEMMs, each registered as Fprop/gemm{i} (not combinable with the flags above):
  --shapes=MxKxN[,MxKxN...]

How to time:
  --l2_flush=true|false      flush L2 before every timed iteration (default true)
  --warmup_runs=N            untimed runs of each case before timing it (default 3)
  --gpu_warmup=SECONDS       busy GEMMs before the first case to settle clocks (default 3)
  --autotune                 time cuBLASLt's top 8 algorithms per case and keep the fastest
                             (default: cuBLASLt's first heuristic answer, as frameworks do)
  --verify                   check each case against a reference GEMM first; counters rel_err
                             and, for quantized recipes, recipe_err
  --emulate                  on GPUs without MXFP8/NVFP4 tensor cores (Hopper), run those GEMMs
                             as an exact emulation (dequantize to BF16, BF16 GEMM), labelled
                             "emulated", instead of skipping them; the times say nothing about
                             Blackwell
  --profile                  for runs under nsys/ncu: cudaProfilerStart/Stop around each timed
                             loop, and the stream is not held by a spinning kernel (profilers
                             serialise launches); times are then not comparable
  --help                     this text
)";
}

}  // namespace gemmscope
