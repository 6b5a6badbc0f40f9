// BF16: the baseline. The GEMM reads the training tensors as they are, in the layouts
// frameworks launch (Fprop TN, Dgrad NN, Wgrad NT), FP32 accumulation, BF16 output.

#include "bench/gemm_choice.h"
#include "bench/pass_tensors.h"
#include "bench/recipes/factories.h"

namespace gemmscope {
namespace {

class Bf16Case : public GemmCase {
 public:
  Bf16Case(const CaseSpec& spec, const RecipeContext& context)
      : GemmCase(spec.gemm),
        tensors_(spec.gemm, 1, context.stream),
        gemm_(choose_gemm(context, tensors_.bf16_problems(), spec.gemm.grouped(), false)) {}

  void enqueue(cudaStream_t stream) override { gemm_.run(stream); }
  std::vector<GemmProblem> gemm_problems() const override { return tensors_.bf16_problems(); }
  std::vector<GemmProblem> original_problems() const override { return tensors_.bf16_problems(); }
  // Rounding the output to BF16 alone gives a relative error of about 2^-9/sqrt(3) = 1.1e-3.
  double tolerance() const override { return 4e-3; }
  std::string label() const override { return gemm_.label(); }
  size_t launches() const override { return gemm_.launches(); }

 protected:
  GemmChoice& gemm_choice() override { return gemm_; }
  const GemmChoice& gemm_choice() const override { return gemm_; }

 private:
  PassTensors tensors_;
  GemmChoice gemm_;
};

class Bf16Recipe : public Recipe {
 public:
  std::string name() const override { return "BF16"; }
  std::vector<Mode> modes() const override { return {Mode::kNative}; }
  std::string unsupported_reason(const DeviceInfo& device) const override {
    if (device.cc_major < 8) {
      return "BF16 tensor cores need compute capability 8.0 or newer; this GPU is " +
             device.compute_capability();
    }
    return "";
  }
  std::unique_ptr<GemmCase> prepare(const CaseSpec& spec,
                                    const RecipeContext& context) const override {
    return std::make_unique<Bf16Case>(spec, context);
  }
};

}  // namespace

std::unique_ptr<Recipe> make_bf16_recipe() {
  return std::make_unique<Bf16Recipe>();
}

}  // namespace gemmscope
