#include "bench/quantize_case.h"

#include <algorithm>

#include "kernels/device_buffer.h"
#include "kernels/random_fill.h"

namespace gemmscope {
namespace {

class QuantizeWork : public TimedWork {
 public:
  QuantizeWork(const Recipe& recipe, const QuantizeSpec& spec, bool stacked_row_scales,
               cudaStream_t stream)
      : spec_(spec), source_(static_cast<size_t>(spec.rows) * static_cast<size_t>(spec.cols)) {
    fill_normal(source_.get(), source_.size(), 0x5eed0004, 0.0f, 1.0f, stream);
    quantizer_ = recipe.make_quantizer({spec.role, source_.get(), spec.rows, spec.cols, spec.copies,
                                        spec.group_rows, stacked_row_scales},
                                       stream);
  }

  void enqueue(cudaStream_t stream) override { quantizer_->quantize(stream); }
  size_t launches() const override { return quantizer_->launches(); }
  double bytes_moved() const override { return quantizer_->bytes_moved(); }
  // The kernels are checked bit for bit against host references by the tests.
  std::string verify(cudaStream_t /*stream*/) override { return ""; }
  void report(benchmark::UserCounters& counters, double seconds_per_iteration,
              const RunMeasurements& run) const override {
    const double gbps = bytes_moved() / seconds_per_iteration / 1e9;
    counters["GBps"] = gbps;
    if (run.copy_gbps > 0)
      counters["pct_of_copy_bw"] = 100.0 * gbps / run.copy_gbps;
    counters["R"] = static_cast<double>(spec_.rows);
    counters["C"] = static_cast<double>(spec_.cols);
    if (!spec_.group_rows.empty())
      counters["G"] = static_cast<double>(spec_.group_rows.size());
  }

 private:
  QuantizeSpec spec_;
  DeviceBuffer<__nv_bfloat16> source_;
  std::unique_ptr<OperandQuantizer> quantizer_;
};

}  // namespace

std::vector<QuantizeSpec> quantize_specs(const Workload& workload, int64_t group_row_alignment) {
  struct Tensor {
    TensorRole role;
    int64_t rows, cols;
    std::vector<int64_t> group_rows;
    bool operator==(const Tensor& o) const {
      return role == o.role && rows == o.rows && cols == o.cols && group_rows == o.group_rows;
    }
  };
  std::vector<Tensor> tensors;
  const auto add = [&tensors](TensorRole role, int64_t cols, std::vector<int64_t> group_rows) {
    int64_t rows = 0;
    for (const int64_t r : group_rows)
      rows += r;
    if (group_rows.size() == 1)
      group_rows.clear();  // one tensor
    const Tensor t{role, rows, cols, std::move(group_rows)};
    if (std::find(tensors.begin(), tensors.end(), t) == tensors.end())
      tensors.push_back(t);
  };
  for (const TensorRole role :
       {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kGradient}) {
    for (const LayerGemm& gemm : workload.gemms) {
      const LinearDims& d = gemm.dims;
      // The routed rows of each expert, padded as the expert GEMM case pads them; a dense
      // layer's rows are one group.
      std::vector<int64_t> rows;
      for (const int64_t r : gemm.grouped() ? gemm.group_rows : std::vector<int64_t>{d.tokens})
        rows.push_back(gemm.grouped() ? (r + group_row_alignment - 1) / group_row_alignment *
                                            group_row_alignment
                                      : r);
      const std::vector<int64_t> weights(gemm.grouped() ? gemm.group_rows.size() : 1,
                                         d.out_features);
      if (role == TensorRole::kActivation && gemm.pass != Pass::kDgrad)
        add(role, d.in_features, rows);
      if (role == TensorRole::kWeight && gemm.pass != Pass::kWgrad)
        add(role, d.in_features, weights);
      if (role == TensorRole::kGradient && gemm.pass != Pass::kFprop)
        add(role, d.out_features, rows);
    }
  }
  std::vector<QuantizeSpec> specs;
  for (const Tensor& t : tensors) {
    for (const OperandCopies copies :
         {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
      specs.push_back({t.role, t.rows, t.cols, copies, t.group_rows});
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
  const std::string groups =
      spec.group_rows.empty() ? "" : "/G:" + std::to_string(spec.group_rows.size());
  return precision + "/Quantize/" + role_token(spec.role) + "/" + copies_token(spec.copies) +
         groups + "/R:" + std::to_string(spec.rows) + "/C:" + std::to_string(spec.cols);
}

std::unique_ptr<TimedWork> prepare_quantize_case(const Recipe& recipe, const QuantizeSpec& spec,
                                                 bool stacked_row_scales, cudaStream_t stream) {
  return std::make_unique<QuantizeWork>(recipe, spec, stacked_row_scales, stream);
}

}  // namespace gemmscope
