#include "bench/timing/gpc_clock_sampler.h"

#include <algorithm>
#include <stdexcept>

#if GEMMSCOPE_HAVE_CUPTI && __has_include(<cupti_pmsampling.h>)
#define GEMMSCOPE_HAVE_PM_SAMPLING 1
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "bench/timing/cupti_library.h"
#else
#define GEMMSCOPE_HAVE_PM_SAMPLING 0
#endif

namespace gemmscope {

GpcClockSummary summarize_gpc_samples(const std::vector<GpcSample>& samples) {
  GpcClockSummary summary;
  double cycles = 0;
  double nanoseconds = 0;
  double active_cycles = 0;
  double cycles_with_activity = 0;
  for (size_t i = 1; i < samples.size(); ++i) {
    const GpcSample& sample = samples[i];
    if (sample.end_ns <= sample.start_ns)
      continue;
    const double duration_ns = static_cast<double>(sample.end_ns - sample.start_ns);
    const double mhz = sample.gpc_cycles / duration_ns * 1e3;
    summary.min_mhz = summary.samples == 0 ? mhz : std::min(summary.min_mhz, mhz);
    ++summary.samples;
    cycles += sample.gpc_cycles;
    nanoseconds += duration_ns;
    if (sample.sm_active_cycles) {
      active_cycles += *sample.sm_active_cycles;
      cycles_with_activity += sample.gpc_cycles;
    }
  }
  summary.seconds = nanoseconds * 1e-9;
  if (summary.samples > 0)
    summary.mean_mhz = cycles / nanoseconds * 1e3;
  if (cycles_with_activity > 0)
    summary.sm_active_pct = 100 * active_cycles / cycles_with_activity;
  return summary;
}

#if GEMMSCOPE_HAVE_PM_SAMPLING

namespace detail {
namespace {

// The GPC clock's counter, which the sampler cannot do without, then one that is nice to have.
// On an H200 gpc__cycles_elapsed.avg/.max, sm__ and smsp__cycles_elapsed.avg all read the same
// clock: 1980 MHz with every SM busy (as clock64() and NVML), 1310-1318 MHz in a BF16 group at
// the power cap (NVML: 1437-1446).
constexpr const char* kGpcCycles = "gpc__cycles_elapsed.avg";
constexpr const char* kSmActiveCycles = "sm__cycles_active.avg";
// Where the GPU writes raw samples; with KEEP_LATEST a longer run drops its oldest samples.
constexpr size_t kHardwareBufferBytes = 256 << 20;
// Samples decoded into the host's counter data image at a time.
constexpr uint32_t kSamplesPerDecode = 1000;

// CUPTI's parameter structs all begin with their size and a reserved pointer.
template <typename Params>
Params params(size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  p.pPriv = nullptr;
  return p;
}
#define GEMMSCOPE_PARAMS(type) params<type>(type##_STRUCT_SIZE)

}  // namespace

class PmSampling {
 public:
  explicit PmSampling(int cuda_device) : device_(static_cast<size_t>(cuda_device)) {
    auto initialize_profiler = GEMMSCOPE_PARAMS(CUpti_Profiler_Initialize_Params);
    cupti::check(
        call<decltype(&cuptiProfilerInitialize)>("cuptiProfilerInitialize")(&initialize_profiler),
        "cuptiProfilerInitialize");
    auto chip = GEMMSCOPE_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = device_;
    cupti::check(call<decltype(&cuptiDeviceGetChipName)>("cuptiDeviceGetChipName")(&chip),
                 "cuptiDeviceGetChipName");
    chip_ = chip.pChipName;

    auto enable = GEMMSCOPE_PARAMS(CUpti_PmSampling_Enable_Params);
    enable.deviceIndex = device_;
    cupti::check(call<decltype(&cuptiPmSamplingEnable)>("cuptiPmSamplingEnable")(&enable),
                 "cuptiPmSamplingEnable");
    object_ = enable.pPmSamplingObject;

    read_counter_availability();
    // The optional counter goes if the two do not fit the hardware's one pass.
    metrics_ = {kGpcCycles, kSmActiveCycles};
    if (!configure()) {
      metrics_ = {kGpcCycles};
      if (!configure())
        throw std::runtime_error(std::string("the GPC cycle counter (") + kGpcCycles +
                                 ") cannot be sampled on " + chip_ + ": " + configure_error_);
    }

    auto set_config = GEMMSCOPE_PARAMS(CUpti_PmSampling_SetConfig_Params);
    set_config.pPmSamplingObject = object_;
    set_config.configSize = config_image_.size();
    set_config.pConfig = config_image_.data();
    set_config.hardwareBufferSize = kHardwareBufferBytes;
    set_config.samplingInterval = GpcClockSampler::kIntervalNs;
    set_config.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set_config.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
    cupti::check(call<decltype(&cuptiPmSamplingSetConfig)>("cuptiPmSamplingSetConfig")(&set_config),
                 "cuptiPmSamplingSetConfig");

    auto data_size = GEMMSCOPE_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
    data_size.pPmSamplingObject = object_;
    data_size.pMetricNames = metrics_.data();
    data_size.numMetrics = metrics_.size();
    data_size.maxSamples = kSamplesPerDecode;
    cupti::check(call<decltype(&cuptiPmSamplingGetCounterDataSize)>(
                     "cuptiPmSamplingGetCounterDataSize")(&data_size),
                 "cuptiPmSamplingGetCounterDataSize");
    empty_counter_data_.resize(data_size.counterDataSize);
    auto initialize_data = GEMMSCOPE_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
    initialize_data.pPmSamplingObject = object_;
    initialize_data.counterDataSize = empty_counter_data_.size();
    initialize_data.pCounterData = empty_counter_data_.data();
    cupti::check(call<decltype(&cuptiPmSamplingCounterDataImageInitialize)>(
                     "cuptiPmSamplingCounterDataImageInitialize")(&initialize_data),
                 "cuptiPmSamplingCounterDataImageInitialize");
  }

  ~PmSampling() {
    if (host_ != nullptr)
      deinitialize_host();
    if (object_ != nullptr) {
      auto disable = GEMMSCOPE_PARAMS(CUpti_PmSampling_Disable_Params);
      disable.pPmSamplingObject = object_;
      call<decltype(&cuptiPmSamplingDisable)>("cuptiPmSamplingDisable")(&disable);
    }
  }

  void start() {
    auto start = GEMMSCOPE_PARAMS(CUpti_PmSampling_Start_Params);
    start.pPmSamplingObject = object_;
    cupti::check(call<decltype(&cuptiPmSamplingStart)>("cuptiPmSamplingStart")(&start),
                 "cuptiPmSamplingStart");
  }

  // Stops sampling and reads every sample the hardware buffer holds.
  std::vector<GpcSample> stop(bool* overflowed) {
    auto stop = GEMMSCOPE_PARAMS(CUpti_PmSampling_Stop_Params);
    stop.pPmSamplingObject = object_;
    cupti::check(call<decltype(&cuptiPmSamplingStop)>("cuptiPmSamplingStop")(&stop),
                 "cuptiPmSamplingStop");
    std::vector<GpcSample> samples;
    *overflowed = false;
    while (true) {  // one counter data image of samples at a time
      std::vector<uint8_t> data = empty_counter_data_;
      auto decode = GEMMSCOPE_PARAMS(CUpti_PmSampling_DecodeData_Params);
      decode.pPmSamplingObject = object_;
      decode.pCounterDataImage = data.data();
      decode.counterDataImageSize = data.size();
      cupti::check(call<decltype(&cuptiPmSamplingDecodeData)>("cuptiPmSamplingDecodeData")(&decode),
                   "cuptiPmSamplingDecodeData");
      *overflowed = *overflowed || decode.overflow != 0;
      auto info = GEMMSCOPE_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
      info.pCounterDataImage = data.data();
      info.counterDataImageSize = data.size();
      cupti::check(call<decltype(&cuptiPmSamplingGetCounterDataInfo)>(
                       "cuptiPmSamplingGetCounterDataInfo")(&info),
                   "cuptiPmSamplingGetCounterDataInfo");
      for (size_t i = 0; i < info.numCompletedSamples; ++i)
        samples.push_back(read_sample(data, i));
      if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ||
          info.numCompletedSamples == 0)
        break;
    }
    return samples;
  }

 private:
  template <typename F>
  static F call(const char* name) {
    return cupti::symbol<F>(name);
  }

  void read_counter_availability() {
    auto availability = GEMMSCOPE_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
    availability.deviceIndex = device_;
    const auto get = call<decltype(&cuptiPmSamplingGetCounterAvailability)>(
        "cuptiPmSamplingGetCounterAvailability");
    cupti::check(get(&availability), "cuptiPmSamplingGetCounterAvailability");
    counter_availability_.resize(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = counter_availability_.data();
    cupti::check(get(&availability), "cuptiPmSamplingGetCounterAvailability");
  }

  // Builds the config image of metrics_ in a fresh host object; false (configure_error_ says
  // why) when a metric is unknown to this chip or they need more than one pass.
  bool configure() {
    if (host_ != nullptr)
      deinitialize_host();
    try {
      auto initialize = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_Initialize_Params);
      initialize.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
      initialize.pChipName = chip_.c_str();
      initialize.pCounterAvailabilityImage = counter_availability_.data();
      cupti::check(
          call<decltype(&cuptiProfilerHostInitialize)>("cuptiProfilerHostInitialize")(&initialize),
          "cuptiProfilerHostInitialize");
      host_ = initialize.pHostObject;
      auto add = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
      add.pHostObject = host_;
      add.ppMetricNames = metrics_.data();
      add.numMetrics = metrics_.size();
      cupti::check(call<decltype(&cuptiProfilerHostConfigAddMetrics)>(
                       "cuptiProfilerHostConfigAddMetrics")(&add),
                   "cuptiProfilerHostConfigAddMetrics");
      auto size = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
      size.pHostObject = host_;
      cupti::check(call<decltype(&cuptiProfilerHostGetConfigImageSize)>(
                       "cuptiProfilerHostGetConfigImageSize")(&size),
                   "cuptiProfilerHostGetConfigImageSize");
      config_image_.resize(size.configImageSize);
      auto image = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
      image.pHostObject = host_;
      image.configImageSize = config_image_.size();
      image.pConfigImage = config_image_.data();
      cupti::check(call<decltype(&cuptiProfilerHostGetConfigImage)>(
                       "cuptiProfilerHostGetConfigImage")(&image),
                   "cuptiProfilerHostGetConfigImage");
      auto passes = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
      passes.configImageSize = config_image_.size();
      passes.pConfigImage = config_image_.data();
      cupti::check(call<decltype(&cuptiProfilerHostGetNumOfPasses)>(
                       "cuptiProfilerHostGetNumOfPasses")(&passes),
                   "cuptiProfilerHostGetNumOfPasses");
      if (passes.numOfPasses != 1) {
        configure_error_ = "the counters need " + std::to_string(passes.numOfPasses) + " passes";
        return false;
      }
      return true;
    } catch (const std::runtime_error& e) {
      configure_error_ = e.what();
      return false;
    }
  }

  void deinitialize_host() {
    auto deinitialize = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    deinitialize.pHostObject = host_;
    call<decltype(&cuptiProfilerHostDeinitialize)>("cuptiProfilerHostDeinitialize")(&deinitialize);
    host_ = nullptr;
  }

  GpcSample read_sample(std::vector<uint8_t>& data, size_t index) {
    auto info = GEMMSCOPE_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
    info.pPmSamplingObject = object_;
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    info.sampleIndex = index;
    cupti::check(call<decltype(&cuptiPmSamplingCounterDataGetSampleInfo)>(
                     "cuptiPmSamplingCounterDataGetSampleInfo")(&info),
                 "cuptiPmSamplingCounterDataGetSampleInfo");
    std::vector<double> values(metrics_.size());
    auto evaluate = GEMMSCOPE_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    evaluate.pHostObject = host_;
    evaluate.pCounterDataImage = data.data();
    evaluate.counterDataImageSize = data.size();
    evaluate.rangeIndex = index;
    evaluate.ppMetricNames = metrics_.data();
    evaluate.numMetrics = metrics_.size();
    evaluate.pMetricValues = values.data();
    cupti::check(call<decltype(&cuptiProfilerHostEvaluateToGpuValues)>(
                     "cuptiProfilerHostEvaluateToGpuValues")(&evaluate),
                 "cuptiProfilerHostEvaluateToGpuValues");
    GpcSample sample;
    sample.start_ns = info.startTimestamp;
    sample.end_ns = info.endTimestamp;
    sample.gpc_cycles = values[0];
    if (values.size() > 1)
      sample.sm_active_cycles = values[1];
    return sample;
  }

  size_t device_;
  std::string chip_;
  CUpti_PmSampling_Object* object_ = nullptr;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<const char*> metrics_;
  std::string configure_error_;
  std::vector<uint8_t> counter_availability_;
  std::vector<uint8_t> config_image_;
  std::vector<uint8_t> empty_counter_data_;
};

}  // namespace detail

GpcClockSampler::GpcClockSampler(int cuda_device) {
  try {
    pm_ = std::make_unique<detail::PmSampling>(cuda_device);
  } catch (const std::exception& e) {
    failure_ = e.what();
  }
}

void GpcClockSampler::start() {
  if (!available() || running_)
    return;
  try {
    pm_->start();
    running_ = true;
  } catch (const std::exception& e) {
    failure_ = e.what();
  }
}

GpcClockSummary GpcClockSampler::stop() {
  if (!available() || !running_)
    return {};
  running_ = false;
  try {
    bool overflowed = false;
    GpcClockSummary summary = summarize_gpc_samples(pm_->stop(&overflowed));
    summary.overflowed = overflowed;
    return summary;
  } catch (const std::exception& e) {
    failure_ = e.what();
    return {};
  }
}

#else  // built without CUPTI's PM sampling headers (CUDA before 12.6)

namespace detail {
class PmSampling {};
}  // namespace detail

GpcClockSampler::GpcClockSampler(int)
    : failure_("built without CUPTI's PM sampling (cupti_pmsampling.h, CUDA 12.6 on)") {}
void GpcClockSampler::start() {}
GpcClockSummary GpcClockSampler::stop() {
  return {};
}

#endif

GpcClockSampler::~GpcClockSampler() = default;

}  // namespace gemmscope
