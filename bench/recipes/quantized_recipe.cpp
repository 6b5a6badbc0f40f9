#include "bench/recipes/quantized_recipe.h"

#include "bench/case_gemm.h"
#include "bench/pass_tensors.h"

namespace gemmscope {
namespace {

struct TnSources {
  OperandSource left;
  OperandSource right;
};

// The two BF16 inputs of group g of a pass and the copy of each its TN GEMM reads.
TnSources tn_sources(const PassTensors& tensors, int64_t g) {
  const LinearDims d = tensors.group_dims(g);
  const OperandSource x{TensorRole::kActivation, tensors.x(g), d.tokens, d.in_features,
                        OperandCopies::kRowwise};
  const OperandSource w{TensorRole::kWeight, tensors.w(g), d.out_features, d.in_features,
                        OperandCopies::kRowwise};
  const OperandSource dy{TensorRole::kGradient, tensors.dy(g), d.tokens, d.out_features,
                         OperandCopies::kRowwise};
  const auto columnwise = [](OperandSource s) {
    s.copies = OperandCopies::kColumnwise;
    return s;
  };
  switch (tensors.gemm().pass) {
    case Pass::kFprop:
      return {x, w};
    case Pass::kDgrad:
      return {dy, columnwise(w)};
    case Pass::kWgrad:
      return {columnwise(dy), columnwise(x)};
  }
  throw std::logic_error("unknown pass");
}

GemmOperand k_major_copy(const OperandQuantizer& quantizer, const OperandSource& source) {
  return {quantizer.copy(source.copies == OperandCopies::kColumnwise), true};
}

class QuantizedGemmCase : public GemmCase {
 public:
  QuantizedGemmCase(const QuantizedRecipe& recipe, const CaseSpec& spec,
                    const RecipeContext& context)
      : GemmCase(spec.gemm),
        autocast_(spec.mode == Mode::kAutocast),
        tolerance_(recipe.tolerance(spec.gemm.pass)),
        tensors_(spec.gemm, recipe.group_row_alignment(), context.stream) {
    // A grouped layer quantizes each expert's slices on their own, with their own scales, as
    // TransformerEngine's GroupedLinear does.
    for (int64_t g = 0; g < tensors_.group_count(); ++g) {
      const TnSources sources = tn_sources(tensors_, g);
      left_.push_back(recipe.make_quantizer(sources.left, context.stream));
      right_.push_back(recipe.make_quantizer(sources.right, context.stream));
      // Quantized once here: prequant's copies, and for autocast a first step of scale history.
      left_.back()->quantize(context.stream);
      right_.back()->quantize(context.stream);
      GemmProblem problem;
      problem.left = k_major_copy(*left_.back(), sources.left);
      problem.right = k_major_copy(*right_.back(), sources.right);
      problem.output = tensors_.output(g);
      problem.fast_accumulation = recipe.fast_accumulation(spec.gemm.pass);
      recipe.check_gemm_operand(problem.left.tensor);
      recipe.check_gemm_operand(problem.right.tensor);
      problems_.push_back(problem);
    }
    gemm_ = make_case_gemm(context, problems_, spec.gemm.grouped(),
                           !recipe.has_native_gemm(context.device));
  }

  void enqueue(cudaStream_t stream) override {
    if (autocast_) {
      for (size_t g = 0; g < left_.size(); ++g) {
        left_[g]->quantize(stream);
        right_[g]->quantize(stream);
      }
    }
    gemm_.gemm->run(stream);
  }
  std::vector<GemmProblem> gemm_problems() const override { return problems_; }
  std::vector<GemmProblem> original_problems() const override { return tensors_.bf16_problems(); }
  double tolerance() const override { return tolerance_; }
  std::string label() const override { return gemm_.label(); }
  bool emulated() const override { return gemm_.gemm->emulated(); }
  int64_t padded_rows() const override { return tensors_.padded_rows(); }
  size_t launches() const override {
    return gemm_.gemm->launches() +
           (autocast_ ? 2 * left_.size() * OperandQuantizer::kMaxLaunches : 0);
  }

 private:
  bool autocast_;
  double tolerance_;
  PassTensors tensors_;
  std::vector<std::unique_ptr<OperandQuantizer>> left_;  // one per group
  std::vector<std::unique_ptr<OperandQuantizer>> right_;
  std::vector<GemmProblem> problems_;
  CaseGemm gemm_;
};

}  // namespace

std::unique_ptr<GemmCase> QuantizedRecipe::prepare(const CaseSpec& spec,
                                                   const RecipeContext& context) const {
  return std::make_unique<QuantizedGemmCase>(*this, spec, context);
}

}  // namespace gemmscope
