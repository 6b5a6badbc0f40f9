#include <stdexcept>

#include "bench/recipe.h"

namespace gemmscope {

std::string GemmCase::verify(cudaStream_t stream) {
  verification_ = verify_case(*this, stream);
  return verification_->passed() ? "" : verification_->failure_message();
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
