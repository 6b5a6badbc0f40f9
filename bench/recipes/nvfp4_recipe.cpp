// NVFP4, after TransformerEngine's recipe: E2M1 data (two per byte), one E4M3 scale per 16
// elements along the contraction dimension plus an FP32 per-tensor factor (folded into the
// GEMM's alpha). By role: X 1x16; W 16x16 blocks shared by both copies; dY 1x16 with
// stochastic rounding; the columnwise copies of X and dY (Wgrad's operands) get the random
// Hadamard transform along tokens. Each quantization reads the input twice: the amax kernel
// (the per-tensor factor needs it) and the quantize kernel.

#include "bench/recipes/block_scaled_layouts.h"
#include "bench/recipes/block_scaled_quantizer.h"
#include "bench/recipes/block_scaled_recipe.h"
#include "bench/recipes/factories.h"
#include "bench/recipes/nvfp4_grouped_quantizer.h"
#include "kernels/device_buffer.h"
#include "quant/nvfp4/operand.h"
#include "quant/nvfp4/quantize.h"

namespace gemmscope {
namespace {

Nvfp4Role nvfp4_role(TensorRole role) {
  switch (role) {
    case TensorRole::kActivation:
      return Nvfp4Role::kActivation;
    case TensorRole::kWeight:
      return Nvfp4Role::kWeight;
    case TensorRole::kGradient:
      return Nvfp4Role::kGradient;
  }
  throw std::logic_error("unknown tensor role");
}

Nvfp4Options nvfp4_options(const OperandSource& source) {
  return nvfp4_options_for(nvfp4_role(source.role));
}

Nvfp4OperandLayout nvfp4_layout(const OperandSource& source) {
  return layout_or_unsupported("NVFP4", [&] {
    return Nvfp4OperandLayout(source.rows, source.cols, source.copies, nvfp4_options(source));
  });
}

Nvfp4GroupedLayout nvfp4_grouped_layout_of(const OperandSource& source) {
  const std::vector<int64_t> group_rows = checked_group_rows(source, "NVFP4 grouped quantizer");
  return layout_or_unsupported("NVFP4", [&] {
    return nvfp4_grouped_layout(group_rows, source.cols, source.copies, nvfp4_options(source));
  });
}

// Two reads of the input (amax, quantize); each copy is half a byte an element plus its E4M3
// scales.
class Nvfp4Quantizer : public BlockScaledQuantizer<Nvfp4OperandLayout, uint8_t> {
 public:
  explicit Nvfp4Quantizer(const OperandSource& source)
      : Nvfp4Quantizer(source, nvfp4_layout(source)) {}

  void quantize(cudaStream_t stream) override {
    quantize_nvfp4(source_.data, source_.rows, source_.cols, source_.copies, layout_.options,
                   {rowwise_.data.get(), rowwise_.scales.get()},
                   {columnwise_.data.get(), columnwise_.scales.get()}, scalars_.get(), stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return copy_view(columnwise, static_cast<const Nvfp4TensorScalars*>(scalars_.get()));
  }

 private:
  Nvfp4Quantizer(const OperandSource& source, const Nvfp4OperandLayout& layout)
      : BlockScaledQuantizer(source, layout, layout.rowwise_scale_bytes(),
                             layout.columnwise_scale_bytes(), 2),
        scalars_(1) {}

  DeviceBuffer<Nvfp4TensorScalars> scalars_;
};

class Nvfp4Recipe : public BlockScaledRecipe {
 public:
  using BlockScaledRecipe::BlockScaledRecipe;
  std::string name() const override { return "NVFP4"; }
  // TransformerEngine pads NVFP4 expert rows to 128 (get_align_size_for_quantization): whole
  // 128-row scale tiles, and the 16x16 Hadamard transform of Wgrad's operands.
  int64_t group_row_alignment() const override { return 128; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t /*stream*/) const override {
    return std::make_unique<Nvfp4Quantizer>(source);
  }
  // Every expert's rows in three launches, each expert's copy (and scalars) the tensor
  // quantizer's.
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return std::make_unique<Nvfp4GroupedQuantizer>(source, nvfp4_grouped_layout_of(source),
                                                   nvfp4_options(source), stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_nvfp4_recipe(bool emulate) {
  return std::make_unique<Nvfp4Recipe>(emulate);
}

}  // namespace gemmscope
