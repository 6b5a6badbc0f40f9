#include <stdexcept>

#include "bench/case_gemm.h"
#include "bench/recipe.h"

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
      failure = v.failure_message() + " (" + case_gemm().current().algorithm() + ")";
  }
  use_alternative(0);
  return failure;
}

size_t GemmCase::alternatives() const {
  return case_gemm().candidates();
}

void GemmCase::use_alternative(size_t index) {
  case_gemm().use(index);
}

void GemmCase::keep_alternative(size_t index, const std::vector<double>& seconds) {
  case_gemm().keep(index, seconds);
}

std::string GemmCase::trial_times() const {
  return case_gemm().trial_times();
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
  if (const std::optional<double> pct = case_gemm().runner_up_pct())
    counters["runner_up_pct"] = *pct;
  if (verification_) {
    counters["rel_err"] = verification_->rel_err;
    if (verification_->recipe_err)
      counters["recipe_err"] = *verification_->recipe_err;
  }
}

std::unique_ptr<OperandQuantizer> Recipe::make_quantizer(const OperandSource& /*source*/,
                                                         cudaStream_t /*stream*/) const {
  throw std::logic_error(name() + " does not quantize");
}

}  // namespace gemmscope
