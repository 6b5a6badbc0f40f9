#pragma once
// One factory per precision; all_recipes() (bench/recipes/recipe.h) lists them in report order.

#include <memory>

#include "bench/recipes/recipe.h"

namespace gemmscope {

std::unique_ptr<Recipe> make_bf16_recipe();
std::unique_ptr<Recipe> make_fp8_current_recipe();
std::unique_ptr<Recipe> make_fp8_delayed_recipe();
std::unique_ptr<Recipe> make_fp8_block_recipe();
std::unique_ptr<Recipe> make_fp8_rowwise_recipe();
std::unique_ptr<Recipe> make_fp8_rowwise_bf16_wgrad_recipe();
std::unique_ptr<Recipe> make_mxfp8_recipe(bool emulate);
std::unique_ptr<Recipe> make_nvfp4_recipe(bool emulate);

}  // namespace gemmscope
