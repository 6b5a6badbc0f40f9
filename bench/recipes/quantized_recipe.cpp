#include "bench/recipes/quantized_recipe.h"

#include <algorithm>
#include <optional>

#include "bench/gemm_choice.h"
#include "bench/pass_quantization.h"
#include "bench/pass_tensors.h"
#include "bench/recipes/bf16_gemm_case.h"
#include "bench/recipes/per_group_quantizer.h"

namespace gemmscope {
namespace {

// The BF16 tensor behind an operand, as a quantizer takes it: the whole tensor of every group
// (a grouped layer's X and dY grouped by the experts' rows, its W by expert), with the copies
// the operand's quantizer writes.
OperandSource operand_source(const PassTensors& tensors, const OperandUse& use,
                             bool stacked_row_scales) {
  const LayerGemm& gemm = tensors.gemm();
  const LinearDims& d = gemm.dims;
  const int64_t groups = tensors.group_count();
  int64_t rows = 0;
  for (const int64_t group_rows : tensors.group_rows())
    rows += group_rows;
  const std::vector<int64_t> row_groups =
      gemm.grouped() ? tensors.group_rows() : std::vector<int64_t>{};
  switch (use.role) {
    case TensorRole::kActivation:
      return {use.role,   tensors.x(0),      rows, d.in_features, use.writes,
              row_groups, stacked_row_scales};
    case TensorRole::kWeight:
      return {
          use.role,
          tensors.w(0),
          groups * d.out_features,
          d.in_features,
          use.writes,
          std::vector<int64_t>(gemm.grouped() ? static_cast<size_t>(groups) : 0, d.out_features),
          stacked_row_scales};
    case TensorRole::kGradient:
      return {use.role,   tensors.dy(0),     rows, d.out_features, use.writes,
              row_groups, stacked_row_scales};
  }
  throw std::logic_error("unknown tensor role");
}

// What a grouped case's experts' rows are padded to: the recipe's multiple, or the listed grouped
// providers' where larger. Every pass of the recipe pads alike, its BF16 ones too, so that they
// read the tensors its quantized passes read.
int64_t row_alignment(const QuantizedRecipe& recipe, const RecipeContext& context) {
  return std::max(recipe.group_row_alignment(), context.grouped.group_row_alignment());
}

// One GEMM operand: its quantizer, and when the case's timed work runs it.
struct QuantizedOperand {
  OperandUse use;
  std::unique_ptr<OperandQuantizer> quantizer;

  GemmOperand k_major_copy(int64_t group) const {
    return {quantizer->copy(use.reads == OperandCopies::kColumnwise, group), true};
  }
  // Whether the timed work's `call`-th enqueue (0-based) quantizes it.
  bool quantized_in(uint64_t call, int microbatches) const {
    return use.timed && (!use.once_per_microbatches || call % microbatches == 0);
  }
};

class QuantizedGemmCase : public GemmCase {
 public:
  QuantizedGemmCase(const QuantizedRecipe& recipe, const CaseSpec& spec,
                    const RecipeContext& context)
      : GemmCase(spec.gemm),
        microbatches_(context.microbatches),
        tolerance_(recipe.tolerance(spec.gemm.pass)),
        tensors_(spec.gemm, row_alignment(recipe, context), context.stream) {
    // A grouped layer quantizes each expert's slices with their own scales, as
    // TransformerEngine's GroupedLinear does: one quantizer per operand covers every expert.
    const bool stacked =
        spec.gemm.grouped() && stacked_row_scales_wanted(context.grouped, tensors_.group_rows());
    const auto quantized_operand = [&](const OperandUse& use) {
      QuantizedOperand operand{
          use, recipe.make_quantizer(operand_source(tensors_, use, stacked), context.stream)};
      // Quantized once here: prequant's copies, the copies a step's earlier passes saved, and
      // for the timed quantizations a first step of scale history.
      operand.quantizer->quantize(context.stream);
      return operand;
    };
    const PassOperands operands =
        pass_operands(spec.gemm.pass, spec.mode, recipe.quantized_passes(), recipe.step_casts());
    left_ = quantized_operand(operands.left);
    right_ = quantized_operand(operands.right);
    for (int64_t g = 0; g < tensors_.group_count(); ++g) {
      GemmProblem problem;
      problem.left = left_.k_major_copy(g);
      problem.right = right_.k_major_copy(g);
      problem.output = tensors_.output(g);
      problem.fast_accumulation = recipe.fast_accumulation(spec.gemm.pass);
      recipe.check_gemm_operand(problem.left.tensor);
      recipe.check_gemm_operand(problem.right.tensor);
      problems_.push_back(problem);
    }
    gemm_.emplace(choose_gemm(context, problems_, spec.gemm.grouped(),
                              !recipe.has_native_gemm(context.device)));
  }

  void enqueue(cudaStream_t stream) override {
    for (const QuantizedOperand* operand : {&left_, &right_}) {
      if (operand->quantized_in(calls_, microbatches_))
        operand->quantizer->quantize(stream);
    }
    ++calls_;
    gemm_->run(stream);
  }
  // A weight quantized once per N microbatches makes N calls one step's worth.
  size_t period() const override {
    const bool cached = left_.use.once_per_microbatches || right_.use.once_per_microbatches;
    return cached ? static_cast<size_t>(microbatches_) : 1;
  }
  std::vector<GemmProblem> gemm_problems() const override { return problems_; }
  std::vector<GemmProblem> original_problems() const override { return tensors_.bf16_problems(); }
  double tolerance() const override { return tolerance_; }
  std::string label() const override { return gemm_->label(); }
  bool emulated() const override { return gemm_->current().emulated(); }
  int64_t padded_rows() const override { return tensors_.padded_rows(); }
  size_t launches() const override {
    size_t launches = gemm_->launches();
    for (const QuantizedOperand* operand : {&left_, &right_})
      launches += operand->use.timed ? operand->quantizer->launches() : 0;
    return launches;
  }

 protected:
  GemmChoice& gemm_choice() override { return *gemm_; }
  const GemmChoice& gemm_choice() const override { return *gemm_; }

 private:
  int microbatches_;
  double tolerance_;
  PassTensors tensors_;
  QuantizedOperand left_;
  QuantizedOperand right_;
  uint64_t calls_ = 0;  // enqueue() calls so far
  std::vector<GemmProblem> problems_;
  std::optional<GemmChoice> gemm_;  // made once the problems are known
};

}  // namespace

std::unique_ptr<OperandQuantizer> QuantizedRecipe::make_quantizer(const OperandSource& source,
                                                                  cudaStream_t stream) const {
  return source.grouped() ? make_grouped_quantizer(source, stream)
                          : make_tensor_quantizer(source, stream);
}

std::unique_ptr<OperandQuantizer> QuantizedRecipe::make_grouped_quantizer(
    const OperandSource& source, cudaStream_t stream) const {
  return std::make_unique<PerGroupQuantizer>(source, [this, stream](const OperandSource& group) {
    return make_tensor_quantizer(group, stream);
  });
}

std::unique_ptr<GemmCase> QuantizedRecipe::prepare(const CaseSpec& spec,
                                                   const RecipeContext& context) const {
  if (!quantized_passes().has(spec.gemm.pass))
    return make_bf16_gemm_case(spec, context, row_alignment(*this, context));
  return std::make_unique<QuantizedGemmCase>(*this, spec, context);
}

}  // namespace gemmscope
