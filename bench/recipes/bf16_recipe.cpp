// BF16: the baseline. The GEMM reads the training tensors as they are, in the layouts
// frameworks launch (Fprop TN, Dgrad NN, Wgrad NT), FP32 accumulation, BF16 output
// (bench/recipes/bf16_gemm_case.h).

#include "bench/recipes/bf16_gemm_case.h"
#include "bench/recipes/factories.h"

namespace gemmscope {
namespace {

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
    // A grouped case's experts' rows padded as the listed grouped providers need (DeepGEMM's
    // 128-row tiles under --grouped=deepgemm), as every recipe's BF16 passes pad them.
    return make_bf16_gemm_case(spec, context, context.grouped.group_row_alignment());
  }
};

}  // namespace

std::unique_ptr<Recipe> make_bf16_recipe() {
  return std::make_unique<Bf16Recipe>();
}

}  // namespace gemmscope
