#include "bench/timing/clock_monitor.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <system_error>

namespace gemmscope {
namespace {

constexpr std::chrono::milliseconds kSamplePeriod{5};

// The little of nvml.h this file uses, declared here because the header is not needed to
// build (nvml.h comes with the driver's development files, not always with the toolkit).
using NvmlReturn = int;  // nvmlReturn_t
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;         // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlClockMemory = 2;     // nvmlClockType_t NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU
struct NvmlDeviceHandle;
using NvmlDevice = NvmlDeviceHandle*;  // nvmlDevice_t
// nvmlFieldValue_t, and the field ids of the two power readings (nvml.h, driver 525 on).
constexpr unsigned int kFieldPowerAverage = 185;  // NVML_FI_DEV_POWER_AVERAGE: over one second
constexpr unsigned int kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT
struct NvmlFieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;  // nvmlValueType_t
  NvmlReturn result;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
};
constexpr int kValueTypeUnsignedInt = 1;  // NVML_VALUE_TYPE_UNSIGNED_INT
// nvml.h's NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE.
constexpr int kPciBusIdSize = 32;

}  // namespace

namespace detail {

// One NVML reading.
struct NvmlSample {
  unsigned int sm_clock_mhz = 0;
  std::optional<unsigned int> instant_power_mw;
  std::optional<unsigned int> average_power_mw;
  std::optional<unsigned int> temperature_c;
  std::optional<unsigned int> memory_clock_mhz;
  std::optional<unsigned int> power_limit_mw;
  unsigned long long event_reasons = 0;
};

class Nvml {
 public:
  // Throws std::runtime_error saying why NVML cannot monitor `cuda_device`.
  explicit Nvml(int cuda_device) {
    try {
      open(cuda_device);
    } catch (...) {
      close();
      throw;
    }
  }
  ~Nvml() { close(); }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // Empty when the SM clock could not be read.
  std::optional<NvmlSample> read() const {
    NvmlSample sample;
    if (get_clock_info_(device_, kNvmlClockSm, &sample.sm_clock_mhz) != kNvmlSuccess)
      return std::nullopt;
    read_power(&sample);
    unsigned int celsius = 0;
    if (get_temperature_ != nullptr &&
        get_temperature_(device_, kNvmlTemperatureGpu, &celsius) == kNvmlSuccess)
      sample.temperature_c = celsius;
    unsigned int memory_mhz = 0;
    if (get_clock_info_(device_, kNvmlClockMemory, &memory_mhz) == kNvmlSuccess)
      sample.memory_clock_mhz = memory_mhz;
    if (get_event_reasons_(device_, &sample.event_reasons) != kNvmlSuccess)
      sample.event_reasons = 0;
    return sample;
  }

 private:
  // nvmlDeviceGetPowerUsage is the one-second average on Ampere and later; the instant power
  // needs the field-value query, which older drivers lack.
  void read_power(NvmlSample* sample) const {
    if (get_field_values_ != nullptr) {
      NvmlFieldValue fields[2] = {};
      fields[0].field_id = kFieldPowerInstant;
      fields[1].field_id = kFieldPowerAverage;
      if (get_field_values_(device_, 2, fields) == kNvmlSuccess) {
        if (fields[0].result == kNvmlSuccess && fields[0].value_type == kValueTypeUnsignedInt)
          sample->instant_power_mw = fields[0].value.ui;
        if (fields[1].result == kNvmlSuccess && fields[1].value_type == kValueTypeUnsignedInt)
          sample->average_power_mw = fields[1].value.ui;
      }
    }
    unsigned int power_mw = 0;
    if (!sample->average_power_mw && get_power_usage_(device_, &power_mw) == kNvmlSuccess)
      sample->average_power_mw = power_mw;
    if (power_limit_mw_ > 0)
      sample->power_limit_mw = power_limit_mw_;
  }

  void open(int cuda_device) {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr)
      throw std::runtime_error(dlerror());
    const auto init = symbol<NvmlReturn (*)()>("nvmlInit_v2");
    shutdown_ = symbol<NvmlReturn (*)()>("nvmlShutdown");
    error_string_ = symbol<const char* (*)(NvmlReturn)>("nvmlErrorString");
    const auto handle_by_bus_id =
        symbol<NvmlReturn (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
    get_clock_info_ =
        symbol<NvmlReturn (*)(NvmlDevice, int, unsigned int*)>("nvmlDeviceGetClockInfo");
    get_power_usage_ = symbol<NvmlReturn (*)(NvmlDevice, unsigned int*)>("nvmlDeviceGetPowerUsage");
    get_field_values_ = optional_symbol<NvmlReturn (*)(NvmlDevice, int, NvmlFieldValue*)>(
        "nvmlDeviceGetFieldValues");
    get_temperature_ =
        optional_symbol<NvmlReturn (*)(NvmlDevice, int, unsigned int*)>("nvmlDeviceGetTemperature");
    // Renamed in driver 535; older drivers only have the old name.
    using GetReasons = NvmlReturn (*)(NvmlDevice, unsigned long long*);
    get_event_reasons_ = optional_symbol<GetReasons>("nvmlDeviceGetCurrentClocksEventReasons");
    if (get_event_reasons_ == nullptr)
      get_event_reasons_ = symbol<GetReasons>("nvmlDeviceGetCurrentClocksThrottleReasons");

    check(init(), "nvmlInit_v2");
    initialized_ = true;

    char bus_id[kPciBusIdSize] = {};
    const cudaError_t status = cudaDeviceGetPCIBusId(bus_id, kPciBusIdSize, cuda_device);
    if (status != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(std::string("cudaDeviceGetPCIBusId: ") + cudaGetErrorString(status));
    }
    check(handle_by_bus_id(bus_id, &device_),
          std::string("nvmlDeviceGetHandleByPciBusId_v2(") + bus_id + ")");
    unsigned int mhz = 0;
    check(get_clock_info_(device_, kNvmlClockSm, &mhz), "nvmlDeviceGetClockInfo(SM)");
    // Read once: the limit does not change while gemm_bench runs (it never changes it).
    const auto get_limit = optional_symbol<NvmlReturn (*)(NvmlDevice, unsigned int*)>(
        "nvmlDeviceGetEnforcedPowerLimit");
    if (get_limit == nullptr || get_limit(device_, &power_limit_mw_) != kNvmlSuccess)
      power_limit_mw_ = 0;
  }

  void close() {
    if (initialized_)
      shutdown_();
    initialized_ = false;
    if (library_ != nullptr)
      dlclose(library_);
    library_ = nullptr;
  }

  template <typename Function>
  Function optional_symbol(const char* name) const {
    return reinterpret_cast<Function>(dlsym(library_, name));
  }
  template <typename Function>
  Function symbol(const char* name) const {
    const Function function = optional_symbol<Function>(name);
    if (function == nullptr)
      throw std::runtime_error(std::string("libnvidia-ml.so.1 has no ") + name);
    return function;
  }
  void check(NvmlReturn result, const std::string& call) const {
    if (result != kNvmlSuccess)
      throw std::runtime_error(call + ": " + error_string_(result));
  }

  void* library_ = nullptr;
  bool initialized_ = false;
  NvmlDevice device_ = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  const char* (*error_string_)(NvmlReturn) = nullptr;
  NvmlReturn (*get_clock_info_)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*get_power_usage_)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_field_values_)(NvmlDevice, int, NvmlFieldValue*) = nullptr;
  NvmlReturn (*get_temperature_)(NvmlDevice, int, unsigned int*) = nullptr;
  unsigned int power_limit_mw_ = 0;  // 0: unknown
  NvmlReturn (*get_event_reasons_)(NvmlDevice, unsigned long long*) = nullptr;
};

}  // namespace detail

std::string clock_event_reasons_text(unsigned long long reasons) {
  static constexpr struct {
    unsigned long long bit;
    const char* text;
  } kSlowdowns[] = {
      {kClockEventSwPowerCap, "SW power cap"},
      {kClockEventHwSlowdown, "HW slowdown"},
      {kClockEventSwThermalSlowdown, "SW thermal slowdown"},
      {kClockEventHwThermalSlowdown, "HW thermal slowdown"},
      {kClockEventHwPowerBrakeSlowdown, "HW power brake"},
  };
  std::string text;
  for (const auto& slowdown : kSlowdowns) {
    if ((reasons & slowdown.bit) == 0)
      continue;
    if (!text.empty())
      text += ", ";
    text += slowdown.text;
  }
  return text;
}

ClockMonitor::ClockMonitor(int cuda_device, const SettleSettings& settle_settings)
    : settle_settings_(settle_settings), settle_detector_(settle_settings) {
  try {
    nvml_ = std::make_unique<detail::Nvml>(cuda_device);
  } catch (const std::exception& e) {
    unavailable_reason_ = e.what();
  }
}

ClockMonitor::~ClockMonitor() {
  const std::lock_guard<std::mutex> control(control_mutex_);
  join_sampler();
}

void ClockMonitor::start() {
  if (!available())
    return;
  const std::lock_guard<std::mutex> control(control_mutex_);
  join_sampler();
  totals_ = Totals{};
  {
    const std::lock_guard<std::mutex> lock(stop_mutex_);
    stop_requested_ = false;
    settle_detector_ = SettleDetector(settle_settings_);
    latest_.reset();
  }
  try {
    sampler_ = std::thread([this] { sample_until_stopped(); });
  } catch (const std::system_error&) {
    // No thread to spare: this measurement has no samples, and its case no clock counters.
  }
}

bool ClockMonitor::settled() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  return settle_detector_.settled();
}

std::optional<PowerReading> ClockMonitor::latest() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  return latest_;
}

unsigned long long ClockMonitor::event_reasons_so_far() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  return totals_.event_reasons;
}

void ClockMonitor::restart_summary() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  totals_ = Totals{};
}

ClockSummary ClockMonitor::stop() {
  if (!available())
    return {};
  const std::lock_guard<std::mutex> control(control_mutex_);
  if (!sampler_.joinable())
    return {};
  join_sampler();
  ClockSummary summary;
  summary.samples = totals_.samples;
  if (totals_.samples > 0) {
    summary.mean_sm_clock_mhz = totals_.sm_clock_mhz_sum / totals_.samples;
    summary.min_sm_clock_mhz = totals_.sm_clock_min_mhz;
  }
  if (totals_.power_samples > 0)
    summary.mean_power_w = totals_.power_w_sum / totals_.power_samples;
  if (totals_.temperature_samples > 0)
    summary.mean_temperature_c = totals_.temperature_c_sum / totals_.temperature_samples;
  summary.event_reasons = totals_.event_reasons;
  return summary;
}

void ClockMonitor::join_sampler() {
  if (!sampler_.joinable())
    return;
  {
    const std::lock_guard<std::mutex> lock(stop_mutex_);
    stop_requested_ = true;
  }
  stop_requested_changed_.notify_one();
  sampler_.join();
}

void ClockMonitor::sample_until_stopped() {
  std::unique_lock<std::mutex> lock(stop_mutex_);
  // At least one sample, however short the measurement. NVML is read without the lock, so a
  // slow NVML call never holds up settled() on the timing thread.
  do {
    lock.unlock();
    const std::optional<detail::NvmlSample> sample = nvml_->read();
    const double seconds = monotonic_seconds();
    lock.lock();
    if (sample)
      record(*sample, seconds);
  } while (
      !stop_requested_changed_.wait_for(lock, kSamplePeriod, [this] { return stop_requested_; }));
}

void ClockMonitor::record(const detail::NvmlSample& sample, double seconds) {
  const double mhz = sample.sm_clock_mhz;
  totals_.sm_clock_min_mhz = totals_.samples == 0 ? mhz : std::min(totals_.sm_clock_min_mhz, mhz);
  totals_.sm_clock_mhz_sum += mhz;
  ++totals_.samples;
  // The case's power is the instant one where NVML has it: the one-second average would
  // still hold the previous case's second.
  const std::optional<unsigned int> power_mw =
      sample.instant_power_mw ? sample.instant_power_mw : sample.average_power_mw;
  if (power_mw) {
    totals_.power_w_sum += *power_mw / 1000.0;
    ++totals_.power_samples;
  }
  if (sample.temperature_c) {
    totals_.temperature_c_sum += *sample.temperature_c;
    ++totals_.temperature_samples;
  }
  totals_.event_reasons |= sample.event_reasons;

  PowerReading reading;
  reading.time_s = seconds;
  if (sample.temperature_c)
    reading.temperature_c = *sample.temperature_c;
  if (sample.memory_clock_mhz)
    reading.memory_clock_mhz = *sample.memory_clock_mhz;
  reading.clock_event_reasons = sample.event_reasons;
  if (sample.power_limit_mw)
    reading.power_limit_w = *sample.power_limit_mw / 1000.0;
  reading.sm_clock_mhz = mhz;
  if (sample.instant_power_mw)
    reading.instant_power_w = *sample.instant_power_mw / 1000.0;
  if (sample.average_power_mw)
    reading.average_power_w = *sample.average_power_mw / 1000.0;
  settle_detector_.add(reading);
  latest_ = reading;
  if (keep_readings_)
    readings_.push_back(reading);
}

void ClockMonitor::keep_readings(bool keep) {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  keep_readings_ = keep;
  readings_.clear();
}

std::vector<PowerReading> ClockMonitor::take_readings() {
  const std::lock_guard<std::mutex> lock(stop_mutex_);
  std::vector<PowerReading> readings;
  readings.swap(readings_);
  return readings;
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace gemmscope
