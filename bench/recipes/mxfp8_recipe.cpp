// MXFP8: E4M3 data with one E8M0 (power-of-two) scale per 32 consecutive elements along the
// contraction dimension, for every operand; rowwise and columnwise copies are quantized
// separately from the BF16 values, in one pass over the input.

#include "bench/recipes/block_scaled_recipe.h"
#include "bench/recipes/copy_buffers.h"
#include "bench/recipes/recipes.h"
#include "quant/mxfp8_operand.h"
#include "quant/mxfp8_quantize.h"
#include "quant/unsupported.h"

namespace gemmscope {
namespace {

Mxfp8OperandLayout mxfp8_layout(const OperandSource& source) {
  try {
    return Mxfp8OperandLayout(source.rows, source.cols, source.copies);
  } catch (const std::invalid_argument& e) {
    throw Unsupported(std::string("MXFP8 cannot take this shape: ") + e.what());
  }
}

class Mxfp8Quantizer : public OperandQuantizer {
 public:
  explicit Mxfp8Quantizer(const OperandSource& source)
      : source_(source),
        layout_(mxfp8_layout(source)),
        rowwise_(has_rowwise(source.copies), layout_.data_bytes(), layout_.rowwise_scale_bytes()),
        columnwise_(has_columnwise(source.copies), layout_.data_bytes(),
                    layout_.columnwise_scale_bytes()) {}

  void quantize(cudaStream_t stream) override {
    quantize_mxfp8(source_.data, source_.rows, source_.cols, source_.copies,
                   {rowwise_.data.get(), rowwise_.scales.get()},
                   {columnwise_.data.get(), columnwise_.scales.get()}, stream);
  }
  QuantizedTensor copy(bool columnwise) const override {
    return columnwise ? layout_.columnwise(columnwise_.data.get(), columnwise_.scales.get())
                      : layout_.rowwise(rowwise_.data.get(), rowwise_.scales.get());
  }
  // One read of the input; each copy is one byte an element plus its E8M0 scales.
  double bytes_moved() const override {
    return static_cast<double>(layout_.data_bytes()) * sizeof(__nv_bfloat16) +
           static_cast<double>(rowwise_.bytes() + columnwise_.bytes());
  }

 private:
  OperandSource source_;
  Mxfp8OperandLayout layout_;
  CopyBuffers<uint8_t> rowwise_;
  CopyBuffers<uint8_t> columnwise_;
};

class Mxfp8Recipe : public BlockScaledRecipe {
 public:
  using BlockScaledRecipe::BlockScaledRecipe;
  std::string name() const override { return "MXFP8"; }
  std::unique_ptr<OperandQuantizer> make_quantizer(const OperandSource& source,
                                                   cudaStream_t /*stream*/) const override {
    return std::make_unique<Mxfp8Quantizer>(source);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_mxfp8_recipe(bool emulate) {
  return std::make_unique<Mxfp8Recipe>(emulate);
}

}  // namespace gemmscope
