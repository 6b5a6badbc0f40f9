// FP8Rowwise: torchao's float8 training recipe "rowwise", which PyTorch-native trainers run on
// Hopper. E4M3 everywhere, one power-of-2 FP32 scale per row of each copy, along its
// contraction dimension (quant/fp8/rowwise.h): Fprop X per token and W per output row; Dgrad dY
// per token and W per input column; Wgrad dY and X per feature, over the tokens. The GEMMs are
// cuBLASLt's with outer-vector scales (OUTER_VEC_32F). A grouped operand's groups are quantized
// together, each with its own scales (GroupedFp8Quantizer): three launches whatever the experts.

#include <cublasLt.h>

#include <string>

#include "bench/recipes/block_scaled_quantizer.h"
#include "bench/recipes/factories.h"
#include "bench/recipes/fp8_recipe.h"
#include "bench/recipes/grouped_fp8_quantizer.h"
#include "quant/fp8/operand.h"
#include "quant/fp8/rowwise.h"

namespace gemmscope {
namespace {

Fp8OperandLayout fp8_rowwise_layout(const OperandSource& source) {
  return Fp8OperandLayout(source.rows, source.cols, ElementFormat::kE4M3, ScaleLayout::kOuterVec);
}

// One read of the input for the rowwise copy alone where its rows fit the one-pass cast, two
// otherwise (each line's amax, then the cast); each copy is one byte an element plus one FP32
// scale a line.
class Fp8RowwiseQuantizer : public BlockScaledQuantizer<Fp8OperandLayout, float> {
 public:
  explicit Fp8RowwiseQuantizer(const OperandSource& source)
      : Fp8RowwiseQuantizer(source, fp8_rowwise_layout(source)) {}

  void quantize(cudaStream_t stream) override {
    quantize_fp8_rowwise(source_.data, source_.rows, source_.cols, targets(), workspace_.get(),
                         stream);
  }
  QuantizedTensor copy(bool columnwise, int64_t /*group*/) const override {
    return copy_view(columnwise);
  }
  size_t launches() const override {
    return fp8_rowwise_launches(source_.cols, has_rowwise(source_.copies),
                                has_columnwise(source_.copies));
  }

 private:
  Fp8RowwiseQuantizer(const OperandSource& source, const Fp8OperandLayout& layout)
      : BlockScaledQuantizer(source, layout, layout.rowwise_scale_count(),
                             layout.columnwise_scale_count(),
                             fp8_rowwise_input_reads(source.cols, has_rowwise(source.copies),
                                                     has_columnwise(source.copies))),
        workspace_(fp8_rowwise_workspace_bytes(source.rows, source.cols)) {}

  Fp8RowwiseTargets targets() const {
    return {rowwise_.data.get(), rowwise_.scales.get(), columnwise_.data.get(),
            columnwise_.scales.get()};
  }

  DeviceBuffer<uint8_t> workspace_;
};

class Fp8RowwiseRecipe : public Fp8Recipe {
 public:
  std::string name() const override { return "FP8Rowwise"; }
  // cuBLASLt's OUTER_VEC_32F scale mode (cuBLAS 12.9 and later) runs on compute capability 9.0
  // only: cuBLAS answers NOT_SUPPORTED on sm_100 and sm_120 (PyTorch routes those to CUTLASS).
  std::string unsupported_reason(const DeviceInfo& device) const override {
    if (device.cc_major != 9 || device.cc_minor != 0) {
      return "FP8Rowwise runs cuBLASLt's outer-vector (OUTER_VEC_32F) scales, which only compute "
             "capability 9.0 takes; this GPU is " +
             device.compute_capability();
    }
    if (cublasLtGetVersion() < 120900) {
      return "FP8Rowwise needs cuBLASLt 12.9 or newer (OUTER_VEC_32F); this one is " +
             std::to_string(cublasLtGetVersion());
    }
    return "";
  }
  std::vector<Mode> modes() const override {
    return {Mode::kStep, Mode::kAutocast, Mode::kPrequant};
  }
  // torchao's Float8Linear with axiswise scales keeps the BF16 input and weight and casts each
  // GEMM's operands along the axis that GEMM needs, every microbatch (float8_linear.py,
  // matmul_with_hp_or_float8_args): no FP8 copy is saved for a later pass or microbatch.
  StepCasts step_casts() const override { return StepCasts::kAtEachGemm; }
  // torchao's rowwise recipe: fast accumulation in the output GEMM only.
  bool fast_accumulation(Pass pass) const override { return pass == Pass::kFprop; }
  std::unique_ptr<OperandQuantizer> make_tensor_quantizer(const OperandSource& source,
                                                          cudaStream_t /*stream*/) const override {
    return std::make_unique<Fp8RowwiseQuantizer>(source);
  }
  std::unique_ptr<OperandQuantizer> make_grouped_quantizer(const OperandSource& source,
                                                           cudaStream_t stream) const override {
    return GroupedFp8Quantizer::rowwise(source, stream);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_fp8_rowwise_recipe() {
  return std::make_unique<Fp8RowwiseRecipe>();
}

}  // namespace gemmscope
