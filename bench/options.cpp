#include "bench/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace gemmscope {
namespace {

std::string fixed_text(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.')
    text.pop_back();
  return text;
}

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
  if (flag.value == "true" || flag.value == "1" || flag.value == "on")
    return true;
  if (flag.value == "false" || flag.value == "0" || flag.value == "off")
    return false;
  throw std::invalid_argument("--" + flag.name + "=" + flag.value +
                              ": expected true, false, on, off, 1 or 0");
}

// A number in (low, high] (or [low, high] when `low_inclusive`), for flags in seconds or percent.
double parse_number(const FlagArgument& flag, double low, double high, bool low_inclusive,
                    const char* unit) {
  char* end = nullptr;
  const double value = std::strtod(flag.value.c_str(), &end);
  const bool above_low = low_inclusive ? value >= low : value > low;
  if (!flag.has_value || flag.value.empty() || *end != '\0' || !std::isfinite(value) ||
      !above_low || value > high) {
    throw std::invalid_argument("--" + flag.name + "=" + flag.value + ": expected " + unit +
                                (low_inclusive ? " from " : " above ") + fixed_text(low) + " to " +
                                fixed_text(high));
  }
  return value;
}

// "--shard=I/N": 0 <= I < N.
void parse_shard(const FlagArgument& flag, BenchOptions* options) {
  const size_t slash = flag.value.find('/');
  char* end_index = nullptr;
  char* end_count = nullptr;
  const std::string index_text = flag.value.substr(0, slash);
  const std::string count_text = slash == std::string::npos ? "" : flag.value.substr(slash + 1);
  const long index = std::strtol(index_text.c_str(), &end_index, 10);
  const long count = std::strtol(count_text.c_str(), &end_count, 10);
  if (index_text.empty() || count_text.empty() || *end_index != '\0' || *end_count != '\0' ||
      count < 1 || count > 4096 || index < 0 || index >= count) {
    throw std::invalid_argument("--shard=" + flag.value +
                                ": expected I/N with 0 <= I < N <= 4096, e.g. --shard=0/2");
  }
  options->shard_index = static_cast<int>(index);
  options->shard_count = static_cast<int>(count);
}

// "--grouped=auto", "--grouped=loop,cutlass", "--provider=cublaslt": `auto` alone, or providers
// of `every` (kernels/gemm_provider.h's list for the flag, in the order of the error message),
// each at most once.
ImplementationList parse_implementations(const FlagArgument& flag,
                                         const std::vector<GemmProvider>& every,
                                         const char* example) {
  if (flag.has_value && flag.value == "auto")
    return {};
  std::string names;
  for (const GemmProvider& provider : every)
    names += std::string(", ") + provider.name;
  if (!flag.has_value) {
    throw std::invalid_argument("--" + flag.name +
                                " needs a value: auto or a comma-separated list of " +
                                names.substr(2) + " (e.g. " + example + ")");
  }
  std::vector<const GemmProvider*> list;
  size_t start = 0;
  while (true) {
    const size_t comma = flag.value.find(',', start);
    const std::string token = flag.value.substr(start, comma - start);
    const GemmProvider* provider = find_provider(every, token);
    if (provider == nullptr || std::find(list.begin(), list.end(), provider) != list.end()) {
      throw std::invalid_argument("--" + flag.name + "=" + flag.value + ": " +
                                  (provider          ? "'" + token + "' is listed twice"
                                   : token == "auto" ? std::string("auto stands alone")
                                                     : "unknown implementation '" + token + "'") +
                                  "; expected auto or a comma-separated list of " +
                                  names.substr(2) + " (e.g. " + example + ")");
    }
    list.push_back(provider);
    if (comma == std::string::npos)
      return ImplementationList::only(std::move(list));
    start = comma + 1;
  }
}

double parse_seconds(const FlagArgument& flag) {
  return parse_number(flag, 0, 3600, /*low_inclusive=*/true, "a number of seconds");
}

// A whole number from `min` to `max`.
int parse_count(const FlagArgument& flag, int max, int min = 0) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(flag.value.c_str(), &end, 10);
  if (!flag.has_value || flag.value.empty() || *end != '\0' || errno == ERANGE || value < min ||
      value > max) {
    throw std::invalid_argument("--" + flag.name + "=" + flag.value +
                                ": expected a whole number from " + std::to_string(min) + " to " +
                                std::to_string(max));
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
  } else if (flag.name == "grouped") {
    options->grouped = parse_implementations(flag, grouped_providers(), "--grouped=cutlass,loop");
  } else if (flag.name == "provider") {
    options->provider = parse_implementations(flag, dense_providers(), "--provider=cublaslt");
  } else if (flag.name == "profile") {
    options->profile = parse_bool(flag);
  } else if (flag.name == "gpu_warmup") {
    options->warmup.min_s = parse_seconds(flag);
  } else if (flag.name == "max_warmup") {
    options->warmup.max_s = parse_seconds(flag);
  } else if (flag.name == "warmup_runs") {
    options->warmup_runs = parse_count(flag, 1000);
  } else if (flag.name == "microbatches") {
    options->microbatches = parse_count(flag, kMaxMicrobatches, 1);
  } else if (flag.name == "steady_state") {
    options->timing.steady_state = parse_bool(flag);
  } else if (flag.name == "max_settle") {
    options->timing.max_settle_s = parse_seconds(flag);
  } else if (flag.name == "max_noise") {
    options->timing.sampling.max_noise_pct = parse_number(flag, 0, 100, false, "a percentage");
  } else if (flag.name == "min_samples") {
    options->timing.sampling.min_samples = std::max(1, parse_count(flag, 1000000));
  } else if (flag.name == "min_time") {
    options->timing.sampling.min_time_s = parse_seconds(flag);
  } else if (flag.name == "min_time_capped") {
    options->timing.sampling.min_time_capped_s = parse_seconds(flag);
  } else if (flag.name == "max_time") {
    options->timing.sampling.max_time_s = parse_number(flag, 0, 3600, false, "a number of seconds");
  } else if (flag.name == "kernel_timer") {
    options->timing.kernel_timer = parse_bool(flag);
  } else if (flag.name == "gpc_clock") {
    options->timing.gpc_clock = parse_bool(flag);
  } else if (flag.name == "list_kernels") {
    options->list_kernels = parse_bool(flag);
  } else if (flag.name == "timeline") {
    if (!flag.has_value || flag.value.empty())
      throw std::invalid_argument("--timeline needs a file name: --timeline=FILE");
    options->timeline_path = flag.value;
  } else if (flag.name == "shard") {
    parse_shard(flag, options);
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
  const SamplingSettings& sampling = options.timing.sampling;
  for (const auto& [name, seconds] : {std::pair{"--min_time", sampling.min_time_s},
                                      std::pair{"--min_time_capped", sampling.min_time_capped_s}}) {
    if (seconds > sampling.max_time_s) {
      throw std::invalid_argument(std::string(name) + " (" + fixed_text(seconds) +
                                  " s) is above --max_time (" + fixed_text(sampling.max_time_s) +
                                  " s)");
    }
  }
  if (options.list_kernels && !options.timing.kernel_timer)
    throw std::invalid_argument("--list_kernels needs the kernel timer (--kernel_timer=on)");
  if (options.profile) {
    // Under a profiler, settling would profile every settling iteration too (they run in the
    // case's NVTX range), and CUPTI serves one client: the profiler.
    options.timing.steady_state = false;
    options.timing.kernel_timer = false;
    options.timing.gpc_clock = false;
  }
  return options;
}

bool has_benchmark_flag(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i) {
    FlagArgument flag;
    if (split_flag(argv[i], &flag) && flag.name == name)
      return true;
  }
  return false;
}

void check_benchmark_min_time(int argc, char** argv, bool iterations_allowed) {
  for (int i = 1; i < argc; ++i) {
    FlagArgument flag;
    if (!split_flag(argv[i], &flag) || flag.name != "benchmark_min_time")
      continue;
    std::string number = flag.value;
    const char unit = number.empty() ? '\0' : number.back();
    if (iterations_allowed && (unit == 's' || unit == 'x'))
      number.pop_back();
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    const bool whole = unit != 'x' || (value <= 1e12 && value == std::floor(value));
    if (!flag.has_value || number.empty() || *end != '\0' || !std::isfinite(value) || value <= 0 ||
        !whole) {
      throw std::invalid_argument(
          "--benchmark_min_time=" + flag.value + ": expected a number of seconds" +
          (iterations_allowed ? " (0.5 or 0.5s) or of iterations (100x)" : " (e.g. 0.5)"));
    }
  }
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
  --head_dim=N               channels per attention head (default hidden / heads)
Mixture of experts (--num_experts makes a model MoE; MoE presets: see --list_models):
  --num_experts=N --num_experts_per_token=K --moe_intermediate_size=N
                             routed experts per layer, top-k, one expert's MLP width
  --num_shared_experts=N     experts every token passes through (may be 0)
  --first_k_dense=N          leading layers with the dense MLP instead of experts (may be 0)
  --expert_parallel=N        ranks the experts are spread over; each holds its own micro-batch
                             and the most loaded one is timed
  --routing=balanced|skewed[:ALPHA]  how routed rows spread over the experts: evenly, or by a
                             fixed-seed popularity ~ 1/rank^ALPHA, 0 < ALPHA <= 4 (default
                             balanced; skewed is skewed:1)
Multi-head latent attention (DeepSeek; --kv_lora_rank turns it on):
  --q_lora_rank=N --kv_lora_rank=N --qk_nope_head_dim=N --qk_rope_head_dim=N --v_head_dim=N
Training step (step cases, the headline verdict; see docs/recipes.md):
  --microbatches=N           microbatches per optimizer step (gradient accumulation; default
                             1): a step case quantizes W once per N microbatches, as
                             TransformerEngine keeps W's copies across them, and its time is
                             a microbatch's, W's cast counted at 1/N (1 to 1024)
Or a list of GEMMs, each registered as Fprop/gemm{i} (not combinable with the flags above):
  --shapes=MxKxN[,MxKxN...]

How to time (see docs/timing.md):
  --steady_state=on|off      time each case at the GPU's steady state: its group (its
                             precision's GEMM cases, expert cases or quantization cases) runs
                             round-robin until NVML shows power and SM clock settled, then is
                             sampled round-robin (default on; off: time from the first
                             iteration, at whatever clock the GPU has)
  --max_settle=SECONDS       stop settling after this long; the label says so (default 5)
  --max_noise=PERCENT        sample until the mean's 95% confidence interval (from batch means)
                             is within this (half-width, % of the mean; default 0.5)
  --min_samples=N            at least N samples per case (default 10)
  --min_time=SECONDS         sample at least this long (default 1)
  --min_time_capped=SECONDS  ... and at least this long while a power or thermal limiter holds
                             the clock down, swinging it with a period of about a second
                             (default 4)
  --max_time=SECONDS         stop sampling after this long even above --max_noise; the label
                             says so (default 8)
  An explicit --benchmark_min_time hands the sampling to Google Benchmark instead: each of its
  iterations is one sample (after settling), and the time is their mean.
  --kernel_timer=on|off      CUPTI records of every kernel of a case's timed work: counters
                             kernel_ms and kernels (default on where CUPTI loads)
  --gpc_clock=on|off         read the GPC clock from the GPU's performance monitors (CUPTI PM
                             sampling) while each group is sampled: counters gpc_clock_mhz and
                             sm_active_pct beside NVML's sm_clock_mhz. A diagnostic, off by
                             default: with it on, power-capped GEMM groups ran 0.4-1.5% slower
                             on an H200; compare runs that both had it on
  --list_kernels             print the kernels of each case (name, median duration) to stderr,
                             and, where auto tried several GEMMs, each one's trial time
  --timeline=FILE            write every NVML reading and every timed sample as CSV, to see
                             how each group settled and whether anything moved while sampled
  --shard=I/N                register only every N-th group of cases (the cases timed
                             together) from the I-th, 0-based: run one shard per GPU
                             (tools/run_shards.sh) and pass all the JSON files to gemm_report
  --l2_flush=true|false      flush L2 before every timed iteration (default true)
  --warmup_runs=N            untimed runs of each case before timing it (default 3)
  --gpu_warmup=SECONDS       busy GEMMs before the first case for at least this long, then until
                             the GPU's temperature stops rising (less than 1 C over 10 s): at
                             its power cap a warmer GPU clocks lower (default 3)
  --max_warmup=SECONDS       ... but no longer than this (default 60; 0: exactly --gpu_warmup)
  --autotune                 time cuBLASLt's top 8 algorithms per case and keep the fastest
                             (default: cuBLASLt's first heuristic answer, as frameworks do)
  --verify                   check each case against a reference GEMM first; counters rel_err
                             and, for quantized recipes, recipe_err
  --emulate                  on GPUs without MXFP8/NVFP4 tensor cores (Hopper), run those GEMMs
                             as an exact emulation (dequantize to BF16, BF16 GEMM), labelled
                             "emulated", instead of skipping them; the times say nothing about
                             Blackwell
  --grouped=auto|IMPL[,IMPL...]
                             how expert (grouped) GEMMs run. auto (default): every
                             implementation and configuration that can run a case is timed
                             while its group settles, and the fastest is kept; the label names
                             it and the runner-up (counter runner_up_pct). A list: the first
                             listed implementation that can run the case (its configurations
                             timed likewise); the label says why the ones before it could not:
                               loop     one cuBLASLt GEMM per expert, as frameworks without a
                                        grouped kernel launch them (every precision)
                               cublas   cuBLAS's grouped batched GEMM (BF16)
                               cutlass  CUTLASS's Hopper grouped GEMMs (BF16, FP8Current,
                                        FP8Delayed, FP8Block; a build with CUTLASS, sm_90)
                               deepgemm DeepGEMM's Hopper m-grouped GEMMs, FP8 1x128 x
                                        128x128 (FP8Block Fprop, Dgrad) and BF16 (Fprop,
                                        Dgrad); a build with DeepGEMM, sm_90, 132 SMs;
                                        each expert's rows a multiple of 128: naming it
                                        pads them so (timed, padded_rows); its kernels
                                        are also compiled for each case's N and K at run
                                        time (BF16's only so), cached on disk
                                        (environment: GEMMSCOPE_JIT=off,
                                        GEMMSCOPE_JIT_CACHE=DIR)
  --provider=auto|PROV[,PROV...]
                             who runs dense (not grouped) GEMMs, chosen as for --grouped
                             (default auto):
                               cublaslt  one cuBLASLt matmul, as frameworks call (every
                                         precision)
                               cutlass   CUTLASS's Hopper block-scaled FP8 GEMMs (FP8Block;
                                         a build with CUTLASS, sm_90)
                               deepgemm  DeepGEMM's Hopper FP8 1x128 x 128x128 GEMM
                                         (FP8Block Fprop, Dgrad; a build with DeepGEMM,
                                         sm_90, 132 SMs)
  --profile                  for runs under nsys/ncu: cudaProfilerStart/Stop around each timed
                             loop, and the stream is not held by a spinning kernel (profilers
                             serialise launches); no settling, no kernel timer and no GPC
                             clock; times are then not comparable
  --help                     this text
)";
}

}  // namespace gemmscope
