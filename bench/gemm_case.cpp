#include "bench/gemm_case.h"

#include "bench/gemm_choice.h"

namespace gemmscope {

std::string GemmCase::verify(cudaStream_t stream) {
  std::string failure;
  for (size_t i = 0; i < alternatives(); ++i) {
    use_alternative(i);
    const Verification v = verify_case(*this, stream);
    const bool worst = !verification_ || !v.passed() ||
                       (verification_->passed() && v.rel_err > verification_->rel_err);
    if (worst)
      verification_ = v;
    if (!v.passed() && failure.empty())
      failure = v.failure_message() + " (" + gemm_choice().current().algorithm() + ")";
  }
  use_alternative(0);
  return failure;
}

size_t GemmCase::alternatives() const {
  return gemm_choice().candidates();
}

void GemmCase::use_alternative(size_t index) {
  gemm_choice().use(index);
}

void GemmCase::keep_alternative(size_t index, const std::vector<double>& seconds) {
  gemm_choice().keep(index, seconds);
}

std::string GemmCase::trial_times() const {
  return gemm_choice().trial_times();
}

void GemmCase::report(benchmark::UserCounters& counters, double seconds_per_iteration,
                      const RunMeasurements& /*run*/) const {
  counters["TFLOPS"] = shape_.flops() / seconds_per_iteration / 1e12;
  counters["M"] = static_cast<double>(shape_.m);
  counters["K"] = static_cast<double>(shape_.k);
  counters["N"] = static_cast<double>(shape_.n);
  if (groups_ > 0) {
    counters["G"] = static_cast<double>(groups_);
    counters["padded_rows"] = static_cast<double>(padded_rows());
  }
  if (emulated())
    counters["emulated"] = 1;
  if (const std::optional<double> pct = gemm_choice().runner_up_pct())
    counters["runner_up_pct"] = *pct;
  if (verification_) {
    counters["rel_err"] = verification_->rel_err;
    if (verification_->recipe_err)
      counters["recipe_err"] = *verification_->recipe_err;
  }
}

}  // namespace gemmscope
