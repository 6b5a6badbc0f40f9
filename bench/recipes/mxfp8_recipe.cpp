// MXFP8: E4M3 data with one E8M0 (power-of-two) scale per 32 consecutive elements along the
// contraction dimension, for every operand; rowwise and columnwise copies are quantized
// separately from the BF16 values, in one pass over the input.

#include "bench/recipes/block_scaled_layouts.h"
#include "bench/recipes/block_scaled_quantizer.h"
#include "bench/recipes/block_scaled_recipe.h"
#include "bench/recipes/factories.h"
#include "bench/recipes/mxfp8_grouped_quantizer.h"
#include "quant/mxfp8/operand.h"
#include "quant/mxfp8/quantize.h"

namespace gemmscope {
namespace {

Mxfp8OperandLayout mxfp8_layout(const OperandSource& source) {
  return layout_or_unsupported(
      "MXFP8", [&] { return Mxfp8OperandLayout(source.rows, source.cols, source.copies); });
}

Mxfp8GroupedLayout mxfp8_grouped_layout_of(const OperandSource& source) {
  const std::vector<int64_t> group_rows = checked_group_rows(source, "MXFP8 grouped quantizer");
  return layout_or_unsupported(
      "MXFP8", [&] { return mxfp8_grouped_layout(group_rows, source.cols, source.copies); });
}

// One read of the input; each copy is one byte an element plus its E8M0 scales.
class Mxfp8Quantizer : public BlockScaledQuantizer<Mxfp8OperandLayout, uint8_t> {
 public:
  explicit Mxfp8Quantizer(const OperandSource& source)
      : Mxfp8Quantizer(source, mxfp8_layout(source)) {}

  void quantize(cudaStream_t stream) override {
    quantize_mxfp8(source_.data, source_.rows, source_.cols, source_.copies,
                   {rowwise_.data.get(), rowwise_.scales.get()},
                   {columnwise_.data.get(), columnwise_.scales.get()}, stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return copy_view(columnwise);
  }

 private:
  Mxfp8Quantizer(const OperandSource& source, const Mxfp8OperandLayout& layout)
      : BlockScaledQuantizer(source, layout, layout.rowwise_scale_bytes(),
                             layout.columnwise_scale_bytes(), 1) {}
};

class Mxfp8Recipe : public BlockScaledRecipe {
 public:
  using BlockScaledRecipe::BlockScaledRecipe;
  std::string name() const override { return "MXFP8"; }
  // One E8M0 scale per 32 rows in the columnwise copies: TransformerEngine pads MXFP8 expert
  // rows to 32 (get_align_size_for_quantization).
  int64_t group_row_alignment() const override { return 32; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t /*stream*/) const override {
    return std::make_unique<Mxfp8Quantizer>(source);
  }
  // Every expert's rows in one launch, each expert's copy the tensor quantizer's.
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return std::make_unique<Mxfp8GroupedQuantizer>(source, mxfp8_grouped_layout_of(source), stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_mxfp8_recipe(bool emulate) {
  return std::make_unique<Mxfp8Recipe>(emulate);
}

}  // namespace gemmscope
