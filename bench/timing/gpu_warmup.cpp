#include "bench/timing/gpu_warmup.h"

#include <chrono>

#include "bench/pass_tensors.h"
#include "kernels/cublaslt/gemm_plan.h"
#include "quant/base/cuda_check.h"

namespace gemmscope {

void TemperatureTrend::add(double time_s, double celsius) {
  readings_.emplace_back(time_s, celsius);
  // Keep the newest reading that is at least a window old, and everything after it.
  while (readings_.size() > 1 && readings_[1].first <= time_s - window_s_)
    readings_.pop_front();
}

bool TemperatureTrend::settled() const {
  if (readings_.size() < 2 || readings_.back().first - readings_.front().first < window_s_)
    return false;
  return readings_.back().second - readings_.front().second < max_rise_c_;
}

WarmupResult warm_up_gpu(const WarmupSettings& settings, const CublasLtContext& cublas,
                         cudaStream_t stream, ClockMonitor& clock_monitor) {
  WarmupResult result;
  if (settings.min_s <= 0 && settings.max_s <= 0)
    return result;
  LayerGemm gemm;
  gemm.pass = Pass::kFprop;
  gemm.op = "warmup";
  gemm.dims = {8192, 8192, 8192};
  gemm.shape = gemm_shape(gemm.pass, gemm.dims);
  const PassTensors tensors(gemm, 1, stream);
  const GemmPlan plan(cublas, tensors.bf16_problem(0), AlgorithmChoice::kHeuristic, stream);
  TemperatureTrend trend(settings.window_s, settings.max_rise_c);
  clock_monitor.start();
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    for (int i = 0; i < 10; ++i)
      plan.run(stream);  // about 15 ms of work on an H100
    CUDA_CHECK(cudaStreamSynchronize(stream));
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (const std::optional<PowerReading> reading = clock_monitor.latest()) {
      if (reading->temperature_c) {
        result.temperature_c = *reading->temperature_c;
        trend.add(reading->time_s, *reading->temperature_c);
      }
    }
    if (result.seconds < settings.min_s)
      continue;
    result.temperature_settled = trend.settled();
    if (result.temperature_settled || result.seconds >= settings.max_s)
      break;
  }
  clock_monitor.stop();
  return result;
}

}  // namespace gemmscope
