// FP8RowwiseBF16Wgrad: torchao's "rowwise_with_gw_hp"
// (bench/recipes/fp8_rowwise_bf16_wgrad_recipe.h). Its FP8 GEMMs are FP8Rowwise's, outer-vector
// scales on both operands (OUTER_VEC_32F); its Wgrad is BF16's GEMM (QuantizedRecipe runs a pass
// left out of quantized_passes() so). A grouped operand's groups are quantized together, each
// with its own scales (GroupedFp8Quantizer): each expert's weight has its own tensorwise scale in
// Dgrad, as each nn.Linear would in torchao, in the same cast as its per-row copy (one launch
// more: the fold of each expert's column amaxes).

#include <string>

#include "bench/recipes/block_scaled_quantizer.h"
#include "bench/recipes/copy_pair_quantizer.h"
#include "bench/recipes/factories.h"
#include "bench/recipes/fp8_recipe.h"
#include "bench/recipes/fp8_rowwise_bf16_wgrad_recipe.h"
#include "bench/recipes/grouped_fp8_quantizer.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/tensorwise_outer_vec.h"

namespace gemmscope {
namespace {

// The requested copies with one tensorwise power-of-2 scale, written as FP8Rowwise writes its
// copies (E4M3, an FP32 scale_inv per row of each copy), so the GEMM plans are FP8Rowwise's.
// Two reads of the input (the amax, then the cast).
class Fp8TensorwiseOuterVecQuantizer : public BlockScaledQuantizer<Fp8OperandLayout, float> {
 public:
  explicit Fp8TensorwiseOuterVecQuantizer(const OperandSource& source)
      : Fp8TensorwiseOuterVecQuantizer(
            source, Fp8OperandLayout(source.rows, source.cols, ElementFormat::kE4M3,
                                     ScaleLayout::kOuterVec)) {}

  void quantize(cudaStream_t stream) override {
    quantize_fp8_tensorwise_outer_vec(source_.data, source_.rows, source_.cols,
                                      {rowwise_.data.get(), rowwise_.scales.get(),
                                       columnwise_.data.get(), columnwise_.scales.get()},
                                      workspace_.get(), stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return copy_view(columnwise);
  }
  size_t launches() const override { return kFp8TensorwiseOuterVecLaunches; }

 private:
  Fp8TensorwiseOuterVecQuantizer(const OperandSource& source, const Fp8OperandLayout& layout)
      : BlockScaledQuantizer(source, layout, layout.rowwise_scale_count(),
                             layout.columnwise_scale_count(), kFp8TensorwiseOuterVecInputReads),
        workspace_(fp8_tensorwise_outer_vec_workspace_bytes()) {}

  DeviceBuffer<uint8_t> workspace_;
};

OperandSource with_copies(OperandSource source, OperandCopies copies) {
  source.copies = copies;
  return source;
}

class Fp8RowwiseBf16WgradRecipe : public Fp8Recipe {
 public:
  Fp8RowwiseBf16WgradRecipe() : rowwise_(make_fp8_rowwise_recipe()) {}

  std::string name() const override { return "FP8RowwiseBF16Wgrad"; }
  // Its FP8 GEMMs are FP8Rowwise's: compute capability 9.0 and cuBLASLt 12.9+ (OUTER_VEC_32F).
  std::string unsupported_reason(const DeviceInfo& device) const override {
    const std::string reason = rowwise_->unsupported_reason(device);
    return reason.empty() ? "" : name() + "'s FP8 GEMMs are FP8Rowwise's: " + reason;
  }
  std::vector<Mode> modes() const override {
    return {Mode::kStep, Mode::kAutocast, Mode::kPrequant};
  }
  // torchao's grad_weight GEMM reads the BF16 input and grad_output (ScalingType.DISABLED).
  QuantizedPasses quantized_passes() const override { return {true, true, false}; }
  // Its casts of X, dY and W's rowwise copy are FP8Rowwise's, on the same tensors: listed there
  // only. Its own are the weight's tensorwise copy, alone and beside the rowwise one.
  bool lists_quantization(TensorRole role, OperandCopies copies) const override {
    return Fp8Recipe::lists_quantization(role, copies) && role == TensorRole::kWeight &&
           has_columnwise(copies);
  }
  // torchao casts each GEMM's operands at that GEMM, every microbatch, as for rowwise: its
  // weight for grad_input from the BF16 weight in backward (float8_linear.py).
  StepCasts step_casts() const override { return StepCasts::kAtEachGemm; }
  // torchao's defaults: gemm_config_output fast, gemm_config_grad_input not.
  bool fast_accumulation(Pass pass) const override { return pass == Pass::kFprop; }

  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t stream) const override {
    const auto make = [&](const OperandSource& copies) -> std::unique_ptr<OperandQuantizer> {
      const bool columnwise = !has_rowwise(copies.copies);  // both copies: scaled alike here
      if (fp8_rowwise_bf16_wgrad_scaling(copies.role, columnwise) == OuterVecScaling::kTensorwise)
        return std::make_unique<Fp8TensorwiseOuterVecQuantizer>(copies);
      return rowwise_->make_quantizer(copies, stream);
    };
    const bool alike = fp8_rowwise_bf16_wgrad_scaling(source.role, false) ==
                       fp8_rowwise_bf16_wgrad_scaling(source.role, true);
    if (source.copies != OperandCopies::kBoth || alike)
      return make(source);
    return std::make_unique<CopyPairQuantizer>(
        make(with_copies(source, OperandCopies::kRowwise)),
        make(with_copies(source, OperandCopies::kColumnwise)));
  }
  // Every expert at once: FP8Rowwise's grouped cast, the weight's columnwise copy one scale an
  // expert (its column amaxes folded into one before the cast).
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return GroupedFp8Quantizer::rowwise(
        source, stream,
        fp8_rowwise_bf16_wgrad_scaling(source.role, true) == OuterVecScaling::kTensorwise);
  }

 private:
  std::unique_ptr<Recipe> rowwise_;  // FP8Rowwise: its per-row quantizer
};

}  // namespace

OuterVecScaling fp8_rowwise_bf16_wgrad_scaling(TensorRole role, bool columnwise) {
  return role == TensorRole::kWeight && columnwise ? OuterVecScaling::kTensorwise
                                                   : OuterVecScaling::kPerRow;
}

std::unique_ptr<Recipe> make_fp8_rowwise_bf16_wgrad_recipe() {
  return std::make_unique<Fp8RowwiseBf16WgradRecipe>();
}

}  // namespace gemmscope
