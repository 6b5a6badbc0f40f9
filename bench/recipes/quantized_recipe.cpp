#include "bench/recipes/quantized_recipe.h"

#include "bench/pass_tensors.h"
#include "kernels/emulated_gemm.h"

namespace gemmscope {
namespace {

struct TnSources {
  OperandSource left;
  OperandSource right;
};

// The two BF16 inputs of a pass and the copy of each its TN GEMM reads.
TnSources tn_sources(const PassTensors& tensors) {
  const LinearDims& d = tensors.gemm().dims;
  const OperandSource x{TensorRole::kActivation, tensors.x().get(), d.tokens, d.in_features,
                        OperandCopies::kRowwise};
  const OperandSource w{TensorRole::kWeight, tensors.w().get(), d.out_features, d.in_features,
                        OperandCopies::kRowwise};
  const OperandSource dy{TensorRole::kGradient, tensors.dy().get(), d.tokens, d.out_features,
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
      : GemmCase(spec.gemm.shape),
        autocast_(spec.mode == Mode::kAutocast),
        tolerance_(recipe.tolerance(spec.gemm.pass)),
        tensors_(spec.gemm, context.stream) {
    const TnSources sources = tn_sources(tensors_);
    left_ = recipe.make_quantizer(sources.left, context.stream);
    right_ = recipe.make_quantizer(sources.right, context.stream);
    // Quantized once here: prequant's copies, and for autocast a first step of scale history.
    left_->quantize(context.stream);
    right_->quantize(context.stream);
    problem_.left = k_major_copy(*left_, sources.left);
    problem_.right = k_major_copy(*right_, sources.right);
    problem_.output = tensors_.output();
    problem_.fast_accumulation = recipe.fast_accumulation(spec.gemm.pass);
    recipe.check_gemm_operand(problem_.left.tensor);
    recipe.check_gemm_operand(problem_.right.tensor);
    if (recipe.has_native_gemm(context.device)) {
      plan_ =
          std::make_unique<GemmPlan>(context.cublas, problem_, context.algorithm, context.stream);
    } else {
      emulated_ = std::make_unique<EmulatedGemm>(context.cublas, problem_, context.algorithm,
                                                 context.stream);
    }
  }

  void enqueue(cudaStream_t stream) override {
    if (autocast_) {
      left_->quantize(stream);
      right_->quantize(stream);
    }
    if (plan_) {
      plan_->run(stream);
    } else {
      emulated_->run(stream);
    }
  }
  GemmProblem gemm_problem() const override { return problem_; }
  GemmProblem original_problem() const override { return tensors_.bf16_problem(); }
  double tolerance() const override { return tolerance_; }
  std::string label() const override { return plan_ ? plan_->algorithm() : emulated_->algorithm(); }
  bool emulated() const override { return emulated_ != nullptr; }

 private:
  bool autocast_;
  double tolerance_;
  PassTensors tensors_;
  std::unique_ptr<OperandQuantizer> left_;
  std::unique_ptr<OperandQuantizer> right_;
  GemmProblem problem_;
  std::unique_ptr<GemmPlan> plan_;          // the native GEMM, or
  std::unique_ptr<EmulatedGemm> emulated_;  // its emulation on GPUs without the tensor cores
};

}  // namespace

std::unique_ptr<GemmCase> QuantizedRecipe::prepare(const CaseSpec& spec,
                                                   const RecipeContext& context) const {
  return std::make_unique<QuantizedGemmCase>(*this, spec, context);
}

}  // namespace gemmscope
