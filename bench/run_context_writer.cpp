#include "bench/run_context_writer.h"

#include <benchmark/benchmark.h>

#include <string>

#include "kernels/deepgemm/grouped_gemm.h"
#include "shapes/routing.h"

namespace gemmscope {
namespace {

std::string bool_text(bool value) {
  return value ? "true" : "false";
}

// "qkv=61 attn_out=61 mlp_up=3 ...": how many of the model's layers hold each op, which turns
// per-op times into a model time (gemm_report).
std::string op_layers_text(const Workload& workload) {
  std::string text;
  for (const LayerGemm& gemm : workload.gemms) {
    if (gemm.pass != Pass::kFprop)
      continue;  // each op once
    text += (text.empty() ? "" : " ") + gemm.op + "=" + std::to_string(gemm.layers);
  }
  return text;
}

// Everything needed to reproduce and compare a run's expert GEMMs: how tokens were routed, the
// rank timed and its experts' routed rows, and how the grouped GEMMs ran.
void add_routing_context(const Workload& workload, const BenchOptions& options) {
  using benchmark::AddCustomContext;
  AddCustomContext("routing", to_string(workload.routing));
  AddCustomContext("routing_seed", std::to_string(kRoutingSeed));
  AddCustomContext("expert_parallel", std::to_string(workload.model.expert_parallel));
  AddCustomContext("expert_rank", std::to_string(workload.expert_routing.rank));
  std::string rows;
  for (const int64_t r : workload.expert_routing.rows)
    rows += (rows.empty() ? "" : ",") + std::to_string(r);
  AddCustomContext("expert_rows", rows);
  AddCustomContext("grouped", options.grouped.text());
}

}  // namespace

void add_run_context(const DeviceInfo& device, const RunMeasurements& measurements,
                     const ClockMonitor& clock_monitor, const KernelTimer& kernel_timer,
                     const GpcClockSampler* gpc_clock_sampler, const Workload& workload,
                     const BenchOptions& options) {
  using benchmark::AddCustomContext;
  AddCustomContext("device_name", device.name);
  AddCustomContext("provider", options.provider.text());
  // Which implementations --provider and --grouped could choose from in this build.
  const std::string cutlass = GEMMSCOPE_CUTLASS_VERSION;
  AddCustomContext("cutlass", cutlass.empty() ? "not built" : cutlass);
  AddCustomContext("deepgemm",
                   !GEMMSCOPE_WITH_DEEPGEMM ? "not built"
                   : deepgemm_grouped_jit_enabled()
                       ? "built; run-time compile of m-grouped kernels for each case's N and K on "
                         "(each label says whether its kernel was compiled so, or why not)"
                       : "built; run-time compile off (GEMMSCOPE_JIT=off)");
  AddCustomContext("compute_capability", device.compute_capability());
  AddCustomContext("sm_count", std::to_string(device.sm_count));
  AddCustomContext("sm_clock_mhz", std::to_string(device.sm_clock_mhz));
  AddCustomContext("memory_clock_mhz", std::to_string(device.memory_clock_mhz));
  AddCustomContext("l2_cache_bytes", std::to_string(device.l2_bytes));
  AddCustomContext("memory_bytes", std::to_string(device.memory_bytes));
  AddCustomContext("driver_version", device.driver_version);
  AddCustomContext("cuda_runtime_version", device.cuda_runtime_version);
  AddCustomContext("cublaslt_version", device.cublaslt_version);
  AddCustomContext("copy_bandwidth_gbps", std::to_string(measurements.copy_gbps));
  // Whether cases carry clock counters (sm_clock_mhz, ...) and clock notes in their labels.
  AddCustomContext("nvml", clock_monitor.available()
                               ? "available"
                               : "unavailable: " + clock_monitor.unavailable_reason());
  if (workload.kind == Workload::Kind::kShapes) {
    AddCustomContext("workload", "shapes");
    AddCustomContext("shapes", workload.shapes_text);
  } else {
    AddCustomContext("workload", "model");
    AddCustomContext("model", workload.model.name);
    AddCustomContext("model_config", workload.model.describe());
    AddCustomContext("num_hidden_layers", std::to_string(workload.model.num_hidden_layers));
    AddCustomContext("tokens", std::to_string(workload.model.tokens()));
    AddCustomContext("op_layers", op_layers_text(workload));
    if (workload.model.is_moe())
      add_routing_context(workload, options);
  }
  AddCustomContext("l2_flush", bool_text(options.l2_flush));
  AddCustomContext("autotune", bool_text(options.autotune));
  AddCustomContext("verify", bool_text(options.verify));
  AddCustomContext("emulate", bool_text(options.emulate));
  AddCustomContext("warmup_runs", std::to_string(options.warmup_runs));
  // A step case's weight is quantized once per this many microbatches (gemm_report reads it).
  AddCustomContext("microbatches", std::to_string(options.microbatches));
  const TimingSettings& timing = options.timing;
  AddCustomContext("steady_state", timing.steady_state ? "on" : "off");
  AddCustomContext("max_settle_s", std::to_string(timing.max_settle_s));
  AddCustomContext("sampling", options.benchmark_drives_iterations
                                   ? "benchmark_min_time (Google Benchmark's loop; mean)"
                                   : "stopping rule (mean)");
  AddCustomContext("max_noise_pct", std::to_string(timing.sampling.max_noise_pct));
  AddCustomContext("min_samples", std::to_string(timing.sampling.min_samples));
  AddCustomContext("min_time_s", std::to_string(timing.sampling.min_time_s));
  AddCustomContext("min_time_capped_s", std::to_string(timing.sampling.min_time_capped_s));
  AddCustomContext("max_time_s", std::to_string(timing.sampling.max_time_s));
  // Whether cases carry kernel_ms and kernels, and why not.
  AddCustomContext("kernel_timer", !timing.kernel_timer ? "off"
                                   : kernel_timer.available()
                                       ? "available (CUPTI)"
                                       : "unavailable: " + kernel_timer.unavailable_reason());
  // Whether cases carry gpc_clock_mhz and sm_active_pct, and why not.
  AddCustomContext("gpc_clock", gpc_clock_sampler == nullptr ? "off"
                                : gpc_clock_sampler->available()
                                    ? "available (CUPTI PM sampling, every " +
                                          std::to_string(GpcClockSampler::kIntervalNs / 1000) +
                                          " us)"
                                    : "unavailable: " + gpc_clock_sampler->unavailable_reason());
  AddCustomContext("shard",
                   std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count));
}

void add_warmup_context(const WarmupResult& warmup) {
  benchmark::AddCustomContext("gpu_warmup_s", std::to_string(warmup.seconds));
  benchmark::AddCustomContext(
      "gpu_warmup_temperature",
      warmup.temperature_c > 0
          ? std::to_string(static_cast<int>(warmup.temperature_c)) + " C, " +
                (warmup.temperature_settled ? "settled" : "still rising at --max_warmup")
          : "unknown (no NVML)");
}

}  // namespace gemmscope
