// FP8Current: tensorwise current scaling. Each quantization computes this tensor's amax, its
// scale (448 or 57344 / amax) and casts, E4M3 for X and W and E5M2 for dY (HYBRID). A grouped
// operand's groups are quantized together, each with its own amax and scale
// (GroupedFp8Quantizer).

#include "bench/recipes/factories.h"
#include "bench/recipes/fp8_recipe.h"
#include "bench/recipes/grouped_fp8_quantizer.h"
#include "kernels/device_buffer.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/tensorwise.h"

namespace gemmscope {
namespace {

class Fp8CurrentQuantizer : public OperandQuantizer {
 public:
  explicit Fp8CurrentQuantizer(const OperandSource& source)
      : source_(source),
        layout_(source.rows, source.cols, fp8_tensorwise_format(source.role), ScaleLayout::kTensor),
        state_buffer_(Fp8CurrentScalingState::kBufferFloats),
        state_(Fp8CurrentScalingState::in_buffer(state_buffer_.get())),
        rowwise_(has_rowwise(source.copies) ? layout_.data_bytes() : 0),
        columnwise_(has_columnwise(source.copies) ? layout_.data_bytes() : 0) {}

  void quantize(cudaStream_t stream) override {
    quantize_fp8_current(source_.data, source_.rows, source_.cols, layout_.format, state_,
                         {rowwise_.get(), columnwise_.get()}, stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return columnwise ? layout_.columnwise(columnwise_.get(), state_.scale_inv)
                      : layout_.rowwise(rowwise_.get(), state_.scale_inv);
  }
  // The amax pass and the cast each read the input; each copy is one byte an element.
  double bytes_moved() const override {
    const double elements = static_cast<double>(layout_.data_bytes());
    return elements * (2 * sizeof(__nv_bfloat16)) +
           static_cast<double>(rowwise_.bytes() + columnwise_.bytes());
  }

 private:
  OperandSource source_;
  Fp8OperandLayout layout_;
  DeviceBuffer<float> state_buffer_;
  Fp8CurrentScalingState state_;
  DeviceBuffer<uint8_t> rowwise_;
  DeviceBuffer<uint8_t> columnwise_;
};

class Fp8CurrentRecipe : public Fp8Recipe {
 public:
  std::string name() const override { return "FP8Current"; }
  std::vector<Mode> modes() const override {
    return {Mode::kStep, Mode::kAutocast, Mode::kPrequant};
  }
  // TransformerEngine's default: fast accumulation in Fprop, split accumulation in the
  // gradient GEMMs.
  bool fast_accumulation(Pass pass) const override { return pass == Pass::kFprop; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t /*stream*/) const override {
    return std::make_unique<Fp8CurrentQuantizer>(source);
  }
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return GroupedFp8Quantizer::current(source, fp8_tensorwise_format(source.role), stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_fp8_current_recipe() {
  return std::make_unique<Fp8CurrentRecipe>();
}

}  // namespace gemmscope
