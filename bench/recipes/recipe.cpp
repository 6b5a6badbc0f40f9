#include "bench/recipes/recipe.h"

#include <optional>
#include <stdexcept>

#include "bench/recipes/factories.h"

namespace gemmscope {

std::unique_ptr<OperandQuantizer> Recipe::make_quantizer(const OperandSource& /*source*/,
                                                         cudaStream_t /*stream*/) const {
  throw std::logic_error(name() + " does not quantize");
}

bool Recipe::lists_quantization(TensorRole role, OperandCopies copies) const {
  if (!quantizes())
    return false;
  const std::optional<OperandCopies> read = copies_read(role, quantized_passes());
  return read && (*read == OperandCopies::kBoth || *read == copies);
}

std::vector<std::unique_ptr<Recipe>> all_recipes(const RecipeSettings& settings) {
  std::vector<std::unique_ptr<Recipe>> recipes;
  recipes.push_back(make_bf16_recipe());
  recipes.push_back(make_fp8_current_recipe());
  recipes.push_back(make_fp8_delayed_recipe());
  recipes.push_back(make_fp8_block_recipe());
  recipes.push_back(make_fp8_rowwise_recipe());
  recipes.push_back(make_fp8_rowwise_bf16_wgrad_recipe());
  recipes.push_back(make_mxfp8_recipe(settings.emulate));
  recipes.push_back(make_nvfp4_recipe(settings.emulate));
  return recipes;
}

}  // namespace gemmscope
