#include "bench/timing/kernel_timer.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "bench/timing/sample_statistics.h"

#if GEMMSCOPE_HAVE_CUPTI
#include <cupti_activity.h>

#include "bench/timing/cupti_library.h"
#endif

namespace gemmscope {

std::string readable_kernel_name(const char* name) {
  if (name == nullptr)
    return "?";
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string text = status == 0 && demangled != nullptr ? demangled : name;
  std::free(demangled);
  // The parameter list is the parenthesis that closes the name; namespaces may hold others.
  if (!text.empty() && text.back() == ')') {
    int depth = 0;
    for (size_t i = text.size(); i-- > 0;) {
      depth += text[i] == ')' ? 1 : text[i] == '(' ? -1 : 0;
      if (depth == 0) {
        text.resize(i);
        break;
      }
    }
  }
  for (const std::string noise : {"(anonymous namespace)::", "void "}) {
    for (size_t at = text.find(noise); at != std::string::npos; at = text.find(noise))
      text.erase(at, noise.size());
  }
  return text;
}

KernelSummary summarize_kernels(const std::vector<std::vector<KernelActivity>>& iterations) {
  KernelSummary summary;
  std::vector<double> sums;
  std::vector<double> counts;
  for (const std::vector<KernelActivity>& iteration : iterations) {
    if (iteration.empty())
      continue;
    double sum = 0;
    for (const KernelActivity& activity : iteration)
      sum += activity.ms - activity.overlap_ms;
    sums.push_back(sum);
    counts.push_back(static_cast<double>(iteration.size()));
  }
  summary.iterations = static_cast<int>(sums.size());
  if (sums.empty())
    return summary;
  summary.mean_ms = summarize_samples(sums).mean;  // as the event time (sample_statistics.h)
  // The count most iterations launched (the larger on a tie), so that `typical` always has
  // iterations to come from.
  std::map<int, int> iterations_by_count;
  for (const double count : counts)
    ++iterations_by_count[static_cast<int>(count)];
  for (const auto& [count, how_many] : iterations_by_count) {
    if (how_many >= iterations_by_count[summary.per_iteration])
      summary.per_iteration = count;
  }
  // Activity by activity, over the iterations that launched the usual number of them.
  for (int i = 0; i < summary.per_iteration; ++i) {
    std::vector<double> durations;
    std::vector<double> overlaps;
    std::string name;
    for (const std::vector<KernelActivity>& iteration : iterations) {
      if (static_cast<int>(iteration.size()) != summary.per_iteration)
        continue;
      durations.push_back(iteration[i].ms);
      overlaps.push_back(iteration[i].overlap_ms);
      name = iteration[i].name;
    }
    if (!durations.empty())
      summary.typical.push_back({name, median_of(durations), median_of(overlaps)});
  }
  return summary;
}

std::uint64_t OverlapTracker::take(std::uint64_t start_ns, std::uint64_t end_ns) {
  const std::uint64_t overlap_end = std::min(end_ns, covered_until_ns_);
  covered_until_ns_ = std::max(covered_until_ns_, end_ns);
  return overlap_end > start_ns ? overlap_end - start_ns : 0;
}

std::string kernel_list_text(const KernelSummary& summary) {
  std::string text;
  for (const KernelActivity& activity : summary.typical) {
    char duration[32];
    std::snprintf(duration, sizeof duration, " %.1f us", activity.ms * 1e3);
    text += (text.empty() ? "" : ", ") + activity.name + duration;
  }
  return text;
}

#if GEMMSCOPE_HAVE_CUPTI

namespace detail {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kBufferAlignment = 8;  // CUPTI's ACTIVITY_RECORD_ALIGNMENT
constexpr CUpti_ExternalCorrelationKind kCorrelationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
// Kernels, memsets and memcpys carry the GPU times; the API records are what external
// correlation ids are attached to.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_DRIVER,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

struct TimedActivity {
  std::uint32_t correlation_id;
  std::uint64_t start_ns;
  std::uint64_t end_ns;
  std::string name;
};

}  // namespace

// CUPTI delivers records through plain C callbacks, so what they fill is process-wide: one
// KernelTimer records at a time (the session owns the only one).
class Cupti {
 public:
  Cupti() {
    enable_ = cupti::symbol<decltype(enable_)>("cuptiActivityEnable");
    disable_ = cupti::symbol<decltype(disable_)>("cuptiActivityDisable");
    flush_all_ = cupti::symbol<decltype(flush_all_)>("cuptiActivityFlushAll");
    next_record_ = cupti::symbol<decltype(next_record_)>("cuptiActivityGetNextRecord");
    push_ = cupti::symbol<decltype(push_)>("cuptiActivityPushExternalCorrelationId");
    pop_ = cupti::symbol<decltype(pop_)>("cuptiActivityPopExternalCorrelationId");
    const auto register_callbacks = cupti::symbol<CUptiResult (*)(
        CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc)>(
        "cuptiActivityRegisterCallbacks");
    instance_ = this;
    cupti::check(register_callbacks(&buffer_requested, &buffer_completed),
                 "cuptiActivityRegisterCallbacks");
  }
  ~Cupti() {
    instance_ = nullptr;  // the library stays loaded: CUPTI keeps threads of its own
  }

  void begin() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      activities_.clear();
      external_ids_.clear();
    }
    for (const CUpti_ActivityKind kind : kKinds)
      cupti::check(enable_(kind), "cuptiActivityEnable");
  }
  void enter(std::uint64_t id) {
    cupti::check(push_(kCorrelationKind, id), "cuptiActivityPush...");
  }
  void leave() {
    std::uint64_t id = 0;
    cupti::check(pop_(kCorrelationKind, &id), "cuptiActivityPopExternalCorrelationId");
  }
  std::map<std::uint64_t, std::vector<KernelActivity>> end() {
    cupti::check(flush_all_(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    for (const CUpti_ActivityKind kind : kKinds)
      cupti::check(disable_(kind), "cuptiActivityDisable");
    const std::lock_guard<std::mutex> lock(mutex_);
    std::sort(
        activities_.begin(), activities_.end(),
        [](const TimedActivity& a, const TimedActivity& b) { return a.start_ns < b.start_ns; });
    std::map<std::uint64_t, std::vector<KernelActivity>> by_iteration;
    std::map<std::uint64_t, OverlapTracker> overlaps;
    for (const TimedActivity& activity : activities_) {
      const auto id = external_ids_.find(activity.correlation_id);
      if (id == external_ids_.end())
        continue;  // launched outside enter()/leave(): the flush, the blocker, set-up
      const std::uint64_t overlap_ns =
          overlaps[id->second].take(activity.start_ns, activity.end_ns);
      by_iteration[id->second].push_back(
          {activity.name, static_cast<double>(activity.end_ns - activity.start_ns) * 1e-6,
           static_cast<double>(overlap_ns) * 1e-6});
    }
    activities_.clear();
    external_ids_.clear();
    return by_iteration;
  }

 private:
  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer == nullptr ? 0 : kBufferBytes;
    *max_records = 0;
  }

  static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                        size_t valid_size) {
    if (instance_ != nullptr)
      instance_->collect(buffer, valid_size);
    std::free(buffer);
  }

  void collect(uint8_t* buffer, size_t valid_size) {
    const std::lock_guard<std::mutex> lock(mutex_);
    CUpti_Activity* record = nullptr;
    while (next_record_(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
          const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          activities_.push_back({kernel->correlationId, kernel->start, kernel->end,
                                 readable_kernel_name(kernel->name)});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* memset = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          activities_.push_back({memset->correlationId, memset->start, memset->end, "memset"});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* memcpy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          activities_.push_back({memcpy->correlationId, memcpy->start, memcpy->end, "memcpy"});
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          const auto* link = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
          if (link->externalKind == kCorrelationKind)
            external_ids_[link->correlationId] = link->externalId;
          break;
        }
        default:
          break;  // API records: only their external correlation matters
      }
    }
  }

  static inline Cupti* instance_ = nullptr;
  CUptiResult (*enable_)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable_)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*flush_all_)(uint32_t) = nullptr;
  CUptiResult (*next_record_)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*push_)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
  CUptiResult (*pop_)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;

  std::mutex mutex_;  // CUPTI calls buffer_completed from a thread of its own
  std::vector<TimedActivity> activities_;
  std::unordered_map<std::uint32_t, std::uint64_t> external_ids_;  // correlation -> iteration
};

}  // namespace detail

KernelTimer::KernelTimer() {
  try {
    cupti_ = std::make_unique<detail::Cupti>();
  } catch (const std::exception& e) {
    unavailable_reason_ = e.what();
  }
}

KernelTimer::~KernelTimer() = default;

void KernelTimer::begin() {
  if (cupti_)
    cupti_->begin();
}

void KernelTimer::enter(std::uint64_t id) {
  if (cupti_)
    cupti_->enter(id);
}

void KernelTimer::leave() {
  if (cupti_)
    cupti_->leave();
}

std::map<std::uint64_t, std::vector<KernelActivity>> KernelTimer::end() {
  return cupti_ ? cupti_->end() : std::map<std::uint64_t, std::vector<KernelActivity>>{};
}

#else  // built without CUPTI's headers

namespace detail {
class Cupti {};
}  // namespace detail

KernelTimer::KernelTimer()
    : unavailable_reason_("built without CUPTI (cupti_activity.h was not found)") {}
KernelTimer::~KernelTimer() = default;
void KernelTimer::begin() {}
void KernelTimer::enter(std::uint64_t) {}
void KernelTimer::leave() {}
std::map<std::uint64_t, std::vector<KernelActivity>> KernelTimer::end() {
  return {};
}

#endif

}  // namespace gemmscope
