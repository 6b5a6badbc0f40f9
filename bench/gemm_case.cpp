#include <stdexcept>

#include "bench/recipe.h"

namespace gemmscope {

std::string GemmCase::verify(cudaStream_t stream) {
  verification_ = verify_case(*this, stream);
  return verification_->passed() ? "" : verification_->failure_message();
}

void GemmCase::report(benchmark::State& state, double seconds_per_iteration,
                      const RunMeasurements& /*run*/) const {
  state.counters["TFLOPS"] = shape_.flops() / seconds_per_iteration / 1e12;
  state.counters["M"] = static_cast<double>(shape_.m);
  state.counters["K"] = static_cast<double>(shape_.k);
  state.counters["N"] = static_cast<double>(shape_.n);
  if (emulated())
    state.counters["emulated"] = 1;
  if (verification_) {
    state.counters["rel_err"] = verification_->rel_err;
    if (verification_->recipe_err)
      state.counters["recipe_err"] = *verification_->recipe_err;
  }
}

std::unique_ptr<OperandQuantizer> Recipe::make_quantizer(const OperandSource& /*source*/,
                                                         cudaStream_t /*stream*/) const {
  throw std::logic_error(name() + " does not quantize");
}

}  // namespace gemmscope
