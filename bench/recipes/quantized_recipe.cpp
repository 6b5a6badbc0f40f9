#include "bench/recipes/quantized_recipe.h"

#include <optional>

#include "bench/gemm_choice.h"
#include "bench/pass_tensors.h"
#include "bench/recipes/per_group_quantizer.h"

namespace gemmscope {
namespace {

struct TnSources {
  OperandSource left;
  OperandSource right;
};

// The two BF16 inputs of a pass, each the whole tensor of every group, and the copy its TN
// GEMMs read. A grouped layer's X and dY are grouped by the experts' rows, its W by expert.
TnSources tn_sources(const PassTensors& tensors) {
  const LayerGemm& gemm = tensors.gemm();
  const LinearDims& d = gemm.dims;
  const int64_t groups = tensors.group_count();
  int64_t rows = 0;
  for (const int64_t group_rows : tensors.group_rows())
    rows += group_rows;
  const std::vector<int64_t> row_groups =
      gemm.grouped() ? tensors.group_rows() : std::vector<int64_t>{};
  const std::vector<int64_t> weight_groups(gemm.grouped() ? static_cast<size_t>(groups) : 0,
                                           d.out_features);
  const OperandSource x{TensorRole::kActivation, tensors.x(0), rows, d.in_features,
                        OperandCopies::kRowwise, row_groups};
  const OperandSource w{TensorRole::kWeight,     tensors.w(0),
                        groups * d.out_features, d.in_features,
                        OperandCopies::kRowwise, weight_groups};
  const OperandSource dy{TensorRole::kGradient, tensors.dy(0),           rows,
                         d.out_features,        OperandCopies::kRowwise, row_groups};
  const auto columnwise = [](OperandSource s) {
    s.copies = OperandCopies::kColumnwise;
    return s;
  };
  switch (gemm.pass) {
    case Pass::kFprop:
      return {x, w};
    case Pass::kDgrad:
      return {dy, columnwise(w)};
    case Pass::kWgrad:
      return {columnwise(dy), columnwise(x)};
  }
  throw std::logic_error("unknown pass");
}

GemmOperand k_major_copy(const OperandQuantizer& quantizer, const OperandSource& source,
                         int64_t group) {
  return {quantizer.copy(source.copies == OperandCopies::kColumnwise, group), true};
}

class QuantizedGemmCase : public GemmCase {
 public:
  QuantizedGemmCase(const QuantizedRecipe& recipe, const CaseSpec& spec,
                    const RecipeContext& context)
      : GemmCase(spec.gemm),
        autocast_(spec.mode == Mode::kAutocast),
        tolerance_(recipe.tolerance(spec.gemm.pass)),
        tensors_(spec.gemm, recipe.group_row_alignment(), context.stream) {
    // A grouped layer quantizes each expert's slices with their own scales, as
    // TransformerEngine's GroupedLinear does: one quantizer per operand covers every expert.
    const TnSources sources = tn_sources(tensors_);
    left_ = recipe.make_quantizer(sources.left, context.stream);
    right_ = recipe.make_quantizer(sources.right, context.stream);
    // Quantized once here: prequant's copies, and for autocast a first step of scale history.
    left_->quantize(context.stream);
    right_->quantize(context.stream);
    for (int64_t g = 0; g < tensors_.group_count(); ++g) {
      GemmProblem problem;
      problem.left = k_major_copy(*left_, sources.left, g);
      problem.right = k_major_copy(*right_, sources.right, g);
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
    if (autocast_) {
      left_->quantize(stream);
      right_->quantize(stream);
    }
    gemm_->run(stream);
  }
  std::vector<GemmProblem> gemm_problems() const override { return problems_; }
  std::vector<GemmProblem> original_problems() const override { return tensors_.bf16_problems(); }
  double tolerance() const override { return tolerance_; }
  std::string label() const override { return gemm_->label(); }
  bool emulated() const override { return gemm_->current().emulated(); }
  int64_t padded_rows() const override { return tensors_.padded_rows(); }
  size_t launches() const override {
    return gemm_->launches() + (autocast_ ? left_->launches() + right_->launches() : 0);
  }

 protected:
  GemmChoice& gemm_choice() override { return *gemm_; }
  const GemmChoice& gemm_choice() const override { return *gemm_; }

 private:
  bool autocast_;
  double tolerance_;
  PassTensors tensors_;
  std::unique_ptr<OperandQuantizer> left_;
  std::unique_ptr<OperandQuantizer> right_;
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
  return std::make_unique<QuantizedGemmCase>(*this, spec, context);
}

}  // namespace gemmscope
