#pragma once
// One factory per precision; all_recipes() (bench/recipe.h) lists them in report order.

#include <memory>

#include "bench/recipe.h"

namespace gemmscope {

std::unique_ptr<Recipe> make_bf16_recipe();

}  // namespace gemmscope
