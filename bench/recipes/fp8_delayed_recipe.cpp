// FP8Delayed: tensorwise delayed scaling. The cast uses the scale derived from the amax
// history and records this step's amax in the same pass; the per-step history roll and scale
// update is part of the quantization, so it is timed wherever the quantization is (step and
// autocast cases, once per tensor quantized). A grouped operand's groups are quantized
// together, each with its own history and scale (GroupedFp8Quantizer).
//
// Only step and autocast are registered: FP8Delayed's prequant GEMM would be exactly
// FP8Current's (same formats, one FP32 scale per tensor), so timing it again would add nothing.

#include "bench/recipes/factories.h"
#include "bench/recipes/fp8_recipe.h"
#include "bench/recipes/grouped_fp8_quantizer.h"
#include "kernels/device_buffer.h"
#include "quant/fp8/delayed.h"
#include "quant/fp8/operand.h"

namespace gemmscope {
namespace {

class Fp8DelayedQuantizer : public OperandQuantizer {
 public:
  Fp8DelayedQuantizer(const OperandSource& source, cudaStream_t stream)
      : source_(source),
        layout_(source.rows, source.cols, fp8_tensorwise_format(source.role), ScaleLayout::kTensor),
        state_buffer_(Fp8DelayedScalingState::buffer_floats()),
        state_(Fp8DelayedScalingState::in_buffer(state_buffer_.get())),
        rowwise_(has_rowwise(source.copies) ? layout_.data_bytes() : 0),
        columnwise_(has_columnwise(source.copies) ? layout_.data_bytes() : 0) {
    reset_delayed_scaling(state_, stream);
  }

  // The scale update first, then the cast with the scale it leaves: the copies' scale_inv is then
  // the one their cast used until the next quantize(), as TransformerEngine's FP8 tensors keep
  // the scale_inv of their cast. (Cast first, a GEMM reading scale_inv after the update would
  // get the next step's.)
  void quantize(cudaStream_t stream) override {
    update_delayed_scaling(state_, layout_.format, stream);
    cast_fp8_delayed(source_.data, source_.rows, source_.cols, layout_.format, state_,
                     {rowwise_.get(), columnwise_.get()}, stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return columnwise ? layout_.columnwise(columnwise_.get(), state_.scale_inv)
                      : layout_.rowwise(rowwise_.get(), state_.scale_inv);
  }
  // One read of the input, one byte an element per copy, and the history read and rewritten.
  double bytes_moved() const override {
    const double elements = static_cast<double>(layout_.data_bytes());
    return elements * sizeof(__nv_bfloat16) +
           static_cast<double>(rowwise_.bytes() + columnwise_.bytes()) +
           2.0 * sizeof(float) * static_cast<double>(state_.history_length);
  }

 private:
  OperandSource source_;
  Fp8OperandLayout layout_;
  DeviceBuffer<float> state_buffer_;
  Fp8DelayedScalingState state_;
  DeviceBuffer<uint8_t> rowwise_;
  DeviceBuffer<uint8_t> columnwise_;
};

class Fp8DelayedRecipe : public Fp8Recipe {
 public:
  std::string name() const override { return "FP8Delayed"; }
  std::vector<Mode> modes() const override { return {Mode::kStep, Mode::kAutocast}; }
  bool fast_accumulation(Pass pass) const override { return pass == Pass::kFprop; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t stream) const override {
    return std::make_unique<Fp8DelayedQuantizer>(source, stream);
  }
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return GroupedFp8Quantizer::delayed(source, fp8_tensorwise_format(source.role), stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_fp8_delayed_recipe() {
  return std::make_unique<Fp8DelayedRecipe>();
}

}  // namespace gemmscope
