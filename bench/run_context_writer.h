#pragma once
// Run-level facts written into the benchmark JSON's "context" (and the console header):
// the device and its software, the workload, and how cases were timed. gemm_report reads
// these keys; keep them stable.

#include "bench/device_info.h"
#include "bench/options.h"
#include "bench/timing/clock_monitor.h"
#include "bench/timing/gpc_clock_sampler.h"
#include "bench/timing/gpu_warmup.h"
#include "bench/timing/kernel_timer.h"
#include "bench/timing/timed_work.h"
#include "shapes/workload.h"

namespace gemmscope {

void add_run_context(const DeviceInfo& device, const RunMeasurements& measurements,
                     const ClockMonitor& clock_monitor, const KernelTimer& kernel_timer,
                     const GpcClockSampler* gpc_clock_sampler, const Workload& workload,
                     const BenchOptions& options);

// How long the warm-up ran and how warm it left the GPU.
void add_warmup_context(const WarmupResult& warmup);

}  // namespace gemmscope
