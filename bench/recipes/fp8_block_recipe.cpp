// FP8Block: TransformerEngine's Float8BlockScaling on Hopper. E4M3 everywhere with power-of-2
// FP32 scales: X and dY 1x128 along the contraction dimension of each copy, W 128x128. The
// GEMMs are 1D x 2D (VEC128_32F x BLK128x128_32F) in Fprop and Dgrad and 1D x 1D in Wgrad. A
// grouped operand's groups are quantized together, each with its own scale tensors
// (GroupedFp8Quantizer).

#include "bench/recipes/block_scaled_quantizer.h"
#include "bench/recipes/factories.h"
#include "bench/recipes/fp8_recipe.h"
#include "bench/recipes/grouped_fp8_quantizer.h"
#include "quant/fp8/block.h"
#include "quant/fp8/operand.h"

namespace gemmscope {
namespace {

ScaleLayout fp8_block_scale_layout(TensorRole role) {
  return role == TensorRole::kWeight ? ScaleLayout::kBlock128x128 : ScaleLayout::kVec128;
}

Fp8OperandLayout fp8_block_layout(const OperandSource& source) {
  return Fp8OperandLayout(source.rows, source.cols, ElementFormat::kE4M3,
                          fp8_block_scale_layout(source.role));
}

// One read of the input; each copy is one byte an element plus its FP32 scales.
class Fp8BlockQuantizer : public BlockScaledQuantizer<Fp8OperandLayout, float> {
 public:
  explicit Fp8BlockQuantizer(const OperandSource& source)
      : Fp8BlockQuantizer(source, fp8_block_layout(source)) {}

  void quantize(cudaStream_t stream) override {
    const Fp8BlockTargets targets{rowwise_.data.get(), rowwise_.scales.get(),
                                  columnwise_.data.get(), columnwise_.scales.get()};
    if (layout_.scale_layout == ScaleLayout::kBlock128x128) {
      quantize_fp8_128x128(source_.data, source_.rows, source_.cols, targets, stream);
    } else {
      quantize_fp8_1x128(source_.data, source_.rows, source_.cols, targets, stream);
    }
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return copy_view(columnwise);
  }

 private:
  Fp8BlockQuantizer(const OperandSource& source, const Fp8OperandLayout& layout)
      : BlockScaledQuantizer(source, layout, layout.rowwise_scale_count(),
                             layout.columnwise_scale_count(), 1) {}
};

class Fp8BlockRecipe : public Fp8Recipe {
 public:
  std::string name() const override { return "FP8Block"; }
  std::vector<Mode> modes() const override {
    return {Mode::kStep, Mode::kAutocast, Mode::kPrequant};
  }
  // TransformerEngine's Float8BlockScaling keeps split (full-precision) accumulation in every
  // pass.
  bool fast_accumulation(Pass /*pass*/) const override { return false; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t /*stream*/) const override {
    return std::make_unique<Fp8BlockQuantizer>(source);
  }
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return GroupedFp8Quantizer::block(source, fp8_block_scale_layout(source.role), stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_fp8_block_recipe() {
  return std::make_unique<Fp8BlockRecipe>();
}

}  // namespace gemmscope
