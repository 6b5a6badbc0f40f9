#include "bench/recipes/bf16_gemm_case.h"

#include "bench/gemm_choice.h"
#include "bench/pass_tensors.h"

namespace gemmscope {
namespace {

class Bf16GemmCase : public GemmCase {
 public:
  Bf16GemmCase(const CaseSpec& spec, const RecipeContext& context, int64_t row_alignment)
      : GemmCase(spec.gemm),
        tensors_(spec.gemm, row_alignment, context.stream),
        gemm_(choose_gemm(context, tensors_.bf16_problems(), spec.gemm.grouped(), false)) {}

  void enqueue(cudaStream_t stream) override { gemm_.run(stream); }
  std::vector<GemmProblem> gemm_problems() const override { return tensors_.bf16_problems(); }
  std::vector<GemmProblem> original_problems() const override { return tensors_.bf16_problems(); }
  // Rounding the output to BF16 alone gives a relative error of about 2^-9/sqrt(3) = 1.1e-3.
  double tolerance() const override { return 4e-3; }
  std::string label() const override { return gemm_.label(); }
  size_t launches() const override { return gemm_.launches(); }
  int64_t padded_rows() const override { return tensors_.padded_rows(); }

 protected:
  GemmChoice& gemm_choice() override { return gemm_; }
  const GemmChoice& gemm_choice() const override { return gemm_; }

 private:
  PassTensors tensors_;
  GemmChoice gemm_;
};

}  // namespace

std::unique_ptr<GemmCase> make_bf16_gemm_case(const CaseSpec& spec, const RecipeContext& context,
                                              int64_t row_alignment) {
  return std::make_unique<Bf16GemmCase>(spec, context, row_alignment);
}

}  // namespace gemmscope
