#include "bench/quantize_case.h"

#include <algorithm>

#include "kernels/device_buffer.h"
#include "kernels/random_fill.h"

namespace gemmscope {
namespace {

class QuantizeWork : public TimedWork {
 public:
  QuantizeWork(const Recipe& recipe, const QuantizeSpec& spec, cudaStream_t stream)
      : spec_(spec), source_(static_cast<size_t>(spec.rows) * static_cast<size_t>(spec.cols)) {
    fill_normal(source_.get(), source_.size(), 0x5eed0004, 0.0f, 1.0f, stream);
    quantizer_ = recipe.make_quantizer(
        {spec.role, source_.get(), spec.rows, spec.cols, spec.copies, {}}, stream);
  }

  void enqueue(cudaStream_t stream) override { quantizer_->quantize(stream); }
  size_t launches() const override { return quantizer_->launches(); }
  // The kernels are checked bit for bit against host references by the tests.
  std::string verify(cudaStream_t /*stream*/) override { return ""; }
  void report(benchmark::UserCounters& counters, double seconds_per_iteration,
              const RunMeasurements& run) const override {
    const double gbps = quantizer_->bytes_moved() / seconds_per_iteration / 1e9;
    counters["GBps"] = gbps;
    if (run.copy_gbps > 0)
      counters["pct_of_copy_bw"] = 100.0 * gbps / run.copy_gbps;
    counters["R"] = static_cast<double>(spec_.rows);
    counters["C"] = static_cast<double>(spec_.cols);
  }

 private:
  QuantizeSpec spec_;
  DeviceBuffer<__nv_bfloat16> source_;
  std::unique_ptr<OperandQuantizer> quantizer_;
};

}  // namespace

std::vector<QuantizeSpec> quantize_specs(const Workload& workload) {
  struct Tensor {
    TensorRole role;
    int64_t rows, cols;
    bool operator==(const Tensor& o) const {
      return role == o.role && rows == o.rows && cols == o.cols;
    }
  };
  std::vector<Tensor> tensors;
  const auto add = [&tensors](TensorRole role, int64_t rows, int64_t cols) {
    const Tensor t{role, rows, cols};
    if (std::find(tensors.begin(), tensors.end(), t) == tensors.end())
      tensors.push_back(t);
  };
  for (const TensorRole role :
       {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kGradient}) {
    for (const LayerGemm& gemm : workload.gemms) {
      const LinearDims& d = gemm.dims;
      const bool reads_x = gemm.pass != Pass::kDgrad;
      const bool reads_w = gemm.pass != Pass::kWgrad;
      const bool reads_dy = gemm.pass != Pass::kFprop;
      if (role == TensorRole::kActivation && reads_x)
        add(role, d.tokens, d.in_features);
      if (role == TensorRole::kWeight && reads_w)
        add(role, d.out_features, d.in_features);
      if (role == TensorRole::kGradient && reads_dy)
        add(role, d.tokens, d.out_features);
    }
  }
  std::vector<QuantizeSpec> specs;
  for (const Tensor& t : tensors) {
    for (const OperandCopies copies :
         {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
      specs.push_back({t.role, t.rows, t.cols, copies});
    }
  }
  return specs;
}

const char* copies_token(OperandCopies copies) {
  switch (copies) {
    case OperandCopies::kRowwise:
      return "rowwise";
    case OperandCopies::kColumnwise:
      return "columnwise";
    case OperandCopies::kBoth:
      return "both";
  }
  return "unknown";
}

std::string quantize_case_name(const std::string& precision, const QuantizeSpec& spec) {
  return precision + "/Quantize/" + role_token(spec.role) + "/" + copies_token(spec.copies) +
         "/R:" + std::to_string(spec.rows) + "/C:" + std::to_string(spec.cols);
}

std::unique_ptr<TimedWork> prepare_quantize_case(const Recipe& recipe, const QuantizeSpec& spec,
                                                 cudaStream_t stream) {
  return std::make_unique<QuantizeWork>(recipe, spec, stream);
}

}  // namespace gemmscope
