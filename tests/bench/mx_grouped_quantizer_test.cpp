// The MXFP8 and NVFP4 recipes' grouped quantizers (bench/recipes/mxfp8_grouped_quantizer.h,
// nvfp4_grouped_quantizer.h), as a GEMM case gets them from make_quantizer, against the
// group-by-group quantization they replace (PerGroupQuantizer over the recipe's tensor
// quantizer): for every role and copy, every group's copy (data, scales with their padding,
// NVFP4's tensor scale) is the same, byte for byte, after each of two steps; the bytes moved are
// the same; the launches do not grow with the groups; shapes a group's format refuses are
// Unsupported as before.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/recipes/factories.h"
#include "bench/recipes/per_group_quantizer.h"
#include "bench/recipes/quantized_recipe.h"
#include "quant/base/unsupported.h"
#include "quant/format_names.h"
#include "quant/swizzled_scale_layout.h"
#include "tests/gpu_test_support.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

struct GroupedRecipe {
  std::unique_ptr<Recipe> recipe;
  std::vector<int64_t> group_rows;  // in the recipe's row padding, with empty groups
  int block_size;                   // elements per scale
  int element_bits;
};

std::vector<GroupedRecipe> grouped_recipes() {
  std::vector<GroupedRecipe> recipes;
  recipes.push_back({make_mxfp8_recipe(/*emulate=*/true), {0, 32, 96, 0, 128, 256}, 32, 8});
  recipes.push_back({make_nvfp4_recipe(/*emulate=*/true), {0, 128, 384, 0, 256}, 16, 4});
  return recipes;
}

template <typename T>
std::vector<T> download_bytes(const void* device, size_t count) {
  return testing::download(static_cast<const T*>(device), count);
}

// A copy's view as text: its shape, format and scale layout, or that it is empty.
std::string view_of(const QuantizedTensor& copy) {
  if (copy.data == nullptr)
    return "empty " + std::to_string(copy.rows) + "x" + std::to_string(copy.cols);
  return std::to_string(copy.rows) + "x" + std::to_string(copy.cols) + " " +
         to_string(copy.format) + " " + to_string(copy.scale_layout) +
         (copy.tensor_scale != nullptr ? " with tensor scale" : "");
}

void expect_same_copies(const OperandQuantizer& grouped, const OperandQuantizer& per_group,
                        const OperandSource& source, const GroupedRecipe& r) {
  for (int64_t g = 0; g < source.group_count(); ++g) {
    for (const bool columnwise : {false, true}) {
      if (columnwise ? !has_columnwise(source.copies) : !has_rowwise(source.copies))
        continue;
      SCOPED_TRACE("group " + std::to_string(g) + (columnwise ? " columnwise" : " rowwise"));
      const QuantizedTensor actual = grouped.copy(columnwise, g);
      const QuantizedTensor expected = per_group.copy(columnwise, g);
      ASSERT_EQ(view_of(actual), view_of(expected));
      if (expected.data == nullptr)
        continue;  // a group without rows
      const auto bytes = static_cast<size_t>(expected.rows * expected.cols * r.element_bits / 8);
      const size_t scales =
          SwizzledScaleLayout(expected.rows, expected.cols / r.block_size).bytes();
      EXPECT_EQ(testing::mismatches(download_bytes<uint8_t>(actual.data, bytes),
                                    download_bytes<uint8_t>(expected.data, bytes)),
                "")
          << "data";
      EXPECT_EQ(testing::mismatches(download_bytes<uint8_t>(actual.scale, scales),
                                    download_bytes<uint8_t>(expected.scale, scales)),
                "")
          << "scales (padding included)";
      if (expected.tensor_scale != nullptr) {
        EXPECT_EQ(testing::mismatches(download_bytes<float>(actual.tensor_scale, 1),
                                      download_bytes<float>(expected.tensor_scale, 1)),
                  "")
            << "tensor scale";
      }
    }
  }
}

TEST(MxGroupedQuantizer, EqualsTheGroupByGroupQuantization) {
  GEMMSCOPE_REQUIRE_GPU();
  for (const GroupedRecipe& r : grouped_recipes()) {
    const auto& quantized = dynamic_cast<const QuantizedRecipe&>(*r.recipe);
    int64_t rows = 0;
    for (const int64_t group_rows : r.group_rows)
      rows += group_rows;
    for (const int64_t cols : {256, 2048}) {
      const auto input = testing::upload(testing::random_bf16(rows, cols, 91));
      for (const TensorRole role :
           {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kGradient}) {
        for (const OperandCopies copies :
             {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
          SCOPED_TRACE(r.recipe->name() + " " + role_token(role) + " cols " + std::to_string(cols) +
                       " copies " + std::to_string(static_cast<int>(copies)));
          const OperandSource source{role, input.get(), rows, cols, copies, r.group_rows};
          const std::unique_ptr<OperandQuantizer> grouped =
              r.recipe->make_quantizer(source, nullptr);
          PerGroupQuantizer per_group(source, [&quantized](const OperandSource& group) {
            return quantized.make_tensor_quantizer(group, nullptr);
          });
          for (int step = 0; step < 2; ++step) {
            SCOPED_TRACE("step " + std::to_string(step));
            grouped->quantize(nullptr);
            per_group.quantize(nullptr);
            expect_same_copies(*grouped, per_group, source, r);
          }
          EXPECT_EQ(grouped->bytes_moved(), per_group.bytes_moved());
        }
      }
    }
  }
}

// One launch for MXFP8, three for NVFP4 (memset, amax, quantize), for 2 groups as for 128.
TEST(MxGroupedQuantizer, LaunchesDoNotGrowWithTheGroups) {
  GEMMSCOPE_REQUIRE_GPU();
  const int64_t cols = 128;
  const int64_t rows = 128 * 128;
  const auto input = testing::upload(testing::random_bf16(rows, cols, 92));
  for (const GroupedRecipe& r : grouped_recipes()) {
    const auto launches = [&](int64_t groups) {
      const OperandSource source{TensorRole::kGradient,
                                 input.get(),
                                 rows,
                                 cols,
                                 OperandCopies::kBoth,
                                 std::vector<int64_t>(static_cast<size_t>(groups), rows / groups)};
      return r.recipe->make_quantizer(source, nullptr)->launches();
    };
    const size_t expected = r.recipe->name() == "MXFP8" ? 1 : 3;
    EXPECT_EQ(launches(2), expected) << r.recipe->name();
    EXPECT_EQ(launches(128), expected) << r.recipe->name();
  }
}

// A group whose columnwise copy the format cannot take: Unsupported, with the format's reason,
// as the group-by-group quantization reports it.
// The shape is checked before anything touches the GPU.
TEST(MxGroupedQuantizer, RefusesWhatAGroupsFormatRefuses) {
  const auto* input = reinterpret_cast<const __nv_bfloat16*>(0x100000);
  for (const GroupedRecipe& r : grouped_recipes()) {
    const OperandSource source{TensorRole::kActivation,    input,     72, 64,
                               OperandCopies::kColumnwise, {64, 0, 8}};
    const std::string message =
        testing::thrown_message<Unsupported>([&] { r.recipe->make_quantizer(source, nullptr); });
    EXPECT_TRUE(testing::contains(message, r.recipe->name() + " cannot take this shape") &&
                testing::contains(message, "8"))
        << message;
  }
}

}  // namespace
}  // namespace gemmscope
