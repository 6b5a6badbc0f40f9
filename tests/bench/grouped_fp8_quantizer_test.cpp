// The FP8 recipes' grouped quantizer (bench/recipes/grouped_fp8_quantizer.h) against the
// group-by-group quantization it replaces (PerGroupQuantizer over the recipe's tensor
// quantizer): for every role and copy, every group's copy is the same, byte for byte and scale
// for scale, after each of two steps; the bytes moved are the same; and the launches stay a few
// whatever the number of groups.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/recipes/factories.h"
#include "bench/recipes/per_group_quantizer.h"
#include "bench/recipes/quantized_recipe.h"
#include "quant/fp8/operand.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

int64_t scale_count(const QuantizedTensor& copy) {
  if (copy.scale_layout == ScaleLayout::kTensor)
    return 1;
  const Fp8OperandLayout layout(copy.rows, copy.cols, copy.format, copy.scale_layout);
  return layout.rowwise_scale_count();
}

void expect_same_copies(const OperandQuantizer& grouped, const OperandQuantizer& per_group,
                        const OperandSource& source) {
  for (int64_t g = 0; g < source.group_count(); ++g) {
    for (const bool columnwise : {false, true}) {
      SCOPED_TRACE("group " + std::to_string(g) + (columnwise ? " columnwise" : " rowwise"));
      const QuantizedTensor actual = grouped.copy(columnwise, g);
      const QuantizedTensor expected = per_group.copy(columnwise, g);
      EXPECT_EQ(actual.rows, expected.rows);
      EXPECT_EQ(actual.cols, expected.cols);
      EXPECT_EQ(actual.format, expected.format);
      EXPECT_EQ(actual.scale_layout, expected.scale_layout);
      if (expected.data == nullptr) {
        EXPECT_EQ(actual.data, nullptr);
        continue;
      }
      const auto bytes = static_cast<size_t>(expected.rows * expected.cols);
      const auto scales = static_cast<size_t>(scale_count(expected));
      EXPECT_EQ(
          testing::mismatches(testing::download(static_cast<const uint8_t*>(actual.data), bytes),
                              testing::download(static_cast<const uint8_t*>(expected.data), bytes)),
          "")
          << "data";
      EXPECT_EQ(
          testing::mismatches(testing::download(static_cast<const float*>(actual.scale), scales),
                              testing::download(static_cast<const float*>(expected.scale), scales)),
          "")
          << "scales";
    }
  }
}

TEST(GroupedFp8Quantizer, EqualsTheGroupByGroupQuantization) {
  GEMMSCOPE_REQUIRE_GPU();
  const std::vector<int64_t> group_rows = {48, 0, 16, 256, 144};
  const int64_t cols = 272;
  const int64_t rows = 464;
  const auto input = testing::upload(testing::random_bf16(rows, cols, 77));
  for (const auto& make :
       {make_fp8_current_recipe, make_fp8_delayed_recipe, make_fp8_block_recipe}) {
    const std::unique_ptr<Recipe> recipe = make();
    const auto& quantized = dynamic_cast<const QuantizedRecipe&>(*recipe);
    for (const TensorRole role :
         {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kGradient}) {
      for (const OperandCopies copies :
           {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
        SCOPED_TRACE(recipe->name() + " " + role_token(role) + " copies " +
                     std::to_string(static_cast<int>(copies)));
        const OperandSource source{role, input.get(), rows, cols, copies, group_rows};
        const std::unique_ptr<OperandQuantizer> grouped = recipe->make_quantizer(source, nullptr);
        PerGroupQuantizer per_group(source, [&quantized](const OperandSource& group) {
          return quantized.make_tensor_quantizer(group, nullptr);
        });
        for (int step = 0; step < 2; ++step) {
          SCOPED_TRACE("step " + std::to_string(step));
          grouped->quantize(nullptr);
          per_group.quantize(nullptr);
          expect_same_copies(*grouped, per_group, source);
        }
        // Delayed scaling updates every group's history, the empty group's too.
        const double empty_history = recipe->name() == "FP8Delayed" ? 2.0 * 4 * 1024 : 0.0;
        EXPECT_EQ(grouped->bytes_moved(), per_group.bytes_moved() + empty_history);
      }
    }
  }
}

TEST(GroupedFp8Quantizer, LaunchesDoNotGrowWithTheGroups) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t cols = 128;
  const auto input = testing::upload(testing::random_bf16(128 * 16, cols, 78));
  for (const auto& make :
       {make_fp8_current_recipe, make_fp8_delayed_recipe, make_fp8_block_recipe}) {
    const std::unique_ptr<Recipe> recipe = make();
    const auto launches = [&](int64_t groups) {
      const OperandSource source{
          TensorRole::kGradient,
          input.get(),
          128 * 16,
          cols,
          OperandCopies::kBoth,
          std::vector<int64_t>(static_cast<size_t>(groups), 128 * 16 / groups)};
      return recipe->make_quantizer(source, nullptr)->launches();
    };
    EXPECT_EQ(launches(2), launches(128)) << recipe->name();
    EXPECT_LE(launches(128), OperandQuantizer::kMaxLaunches) << recipe->name();
  }
}

}  // namespace
}  // namespace gemmscope
